//! `alphazero train`: the AlphaZero loop — self-play → replay buffer → training → gating —
//! crash-safe and resumable.
//!
//! One iteration:
//! 1. **Self-play** with the champion: many games at once, all their leaves batched through the
//!    network ([`alphazero_selfplay::play_selfplay_games`]); the games are written as one
//!    record file `records/<id>.azr`.
//! 2. **Replay buffer**: the new positions join a ring of the most recent ones; batches mix
//!    recent and uniform samples, each with a random board symmetry.
//! 3. **Training**: `steps_for(new positions)` optimizer steps; the trainer state (weights,
//!    optimizer, step) is saved as `networks/latest.azc`.
//! 4. **Gating**: the candidate plays the champion (colours swapped, random openings, no noise);
//!    it is promoted at a score ≥ `gating.win_rate` or by SPRT, and saved as
//!    `networks/champion-<id>.azc`. Champions are never deleted.
//!
//! Durability: every file goes through [`alphazero_train::Storage`] (temp file, fsync,
//! rename). The run state (`state/run.json`) is written last in an iteration, so a run killed at
//! any moment resumes from the last completed iteration; record files of an interrupted
//! iteration are kept and loaded into the buffer (nothing lost), and record ids never repeat.
use crate::games::{GameArgs, GameName, GameSpec};
use crate::with_game;
use alphazero_arena::rating;
use alphazero_mcts::{CPuct, CachedEvaluator, GumbelConfig, SearchConfig};
use alphazero_nn::{
    kl_divergence, load_checkpoint, save_checkpoint, save_model, Batch, Encode, GameTag,
    LrSchedule as NnLrSchedule, NetworkEvaluator, OptimizerKind, PolicyValueNet, Trainer,
};
use alphazero_selfplay::{
    play_match, play_selfplay_games, MatchConfig, MatchOutcome, PlayoutCap, Resignation,
    SelfPlayConfig,
};
use alphazero_train::config::{Optimizer, TrainConfig};
use alphazero_train::metrics::{GatingMetrics, IterationMetrics, MetricsLog};
use alphazero_train::record::{read_records, write_records, GameRecord, RecordFile, RecordHeader};
use alphazero_train::replay::{ReplayBuffer, SampleOptions};
use alphazero_train::state::{ChampionInfo, RunState};
use alphazero_train::storage::{champion_key, record_key, LocalStorage, Storage};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Arguments of `alphazero train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Game to learn (required for a new run; a resumed run reads it from its config).
    #[arg(long, value_enum)]
    game: Option<GameName>,
    /// Gomoku board size (5–20); default 15.
    #[arg(long)]
    size: Option<u8>,
    /// Gomoku rule: freestyle, standard or renju.
    #[arg(long)]
    rule: Option<String>,
    /// Run directory: created if new, resumed if it holds a run.
    #[arg(long)]
    run: PathBuf,
    /// TOML config file (keys not given take the game's defaults).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Config override `section.key=value`, e.g. `--set selfplay.simulations=50` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Shorthand for `--set run.iterations=N`: stop after N iterations in total.
    #[arg(long)]
    iterations: Option<u32>,
    /// Shorthand for `--set run.time_budget_minutes=M`: stop after M minutes of training in total.
    #[arg(long)]
    minutes: Option<f64>,
    /// Device: `cpu` (burn Flex) or, in builds with the `cuda` feature, `cuda[:N]`.
    #[arg(long, default_value = "default")]
    device: String,
    /// No progress bars (one summary line per iteration only).
    #[arg(long)]
    quiet: bool,
    /// Validate the configuration, print the effective config and exit without writing anything.
    #[arg(long)]
    dry_run: bool,
}

const CONFIG_KEY: &str = "config.toml";
const LATEST_KEY: &str = "networks/latest.azc";

/// Builds the effective config: a resumed run's saved config, or the given file / defaults,
/// with the overrides applied.
fn effective_config(args: &TrainArgs) -> Result<(TrainConfig, bool)> {
    let mut overrides = args.overrides.clone();
    if let Some(n) = args.iterations {
        overrides.push(format!("run.iterations={n}"));
    }
    if let Some(m) = args.minutes {
        overrides.push(format!("run.time_budget_minutes={m}"));
    }
    let saved_path = args.run.join(CONFIG_KEY);
    if saved_path.is_file() {
        let text = std::fs::read_to_string(&saved_path)
            .with_context(|| format!("reading the run's saved {}", saved_path.display()))?;
        let old =
            TrainConfig::parse(&text, &[] as &[String]).context("the run's saved config.toml")?;
        if let Some(g) = args.game {
            if g.as_str() != old.game.name {
                bail!(
                    "run directory {} holds a {} run; --game {} does not match",
                    args.run.display(),
                    old.game.name,
                    g.as_str()
                );
            }
        }
        if args.config.is_some() {
            bail!("--config cannot change a run that already exists; use --set for overrides");
        }
        let new = old.with_overrides(&overrides)?;
        if new.game != old.game || new.model != old.model {
            bail!("the game and the model shape of an existing run cannot change");
        }
        return Ok((new, true));
    }
    let text = match &args.config {
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("reading config {}", p.display()))?
        }
        None => String::new(),
    };
    let mut pre = Vec::new();
    if let Some(g) = args.game {
        pre.push(format!("game.name={}", g.as_str()));
    }
    if let Some(s) = args.size {
        pre.push(format!("game.size=\"{s}\""));
    }
    if let Some(r) = &args.rule {
        pre.push(format!("game.rule=\"{r}\""));
    }
    pre.extend(overrides);
    let cfg = TrainConfig::parse(&text, &pre)?;
    Ok((cfg, false))
}

fn game_spec(cfg: &TrainConfig) -> Result<GameSpec> {
    let name = match cfg.game.name.as_str() {
        "gomoku" => GameName::Gomoku,
        "xiangqi" => GameName::Xiangqi,
        "connect4" => GameName::Connect4,
        other => bail!("unknown game {other:?}"),
    };
    let size = if cfg.game.size.is_empty() {
        15
    } else {
        cfg.game
            .size
            .parse::<u8>()
            .with_context(|| format!("game.size {:?} is not a board size", cfg.game.size))?
    };
    let rule = if cfg.game.rule.is_empty() {
        "freestyle".to_string()
    } else {
        cfg.game.rule.clone()
    };
    GameArgs {
        game: name,
        size,
        rule,
    }
    .spec()
}

/// Runs `alphazero train`.
// The macro instantiates this for each game; some game configs are `Copy`.
#[allow(clippy::clone_on_copy)]
pub fn run(args: &TrainArgs) -> Result<()> {
    // Validate everything before touching the disk.
    let (cfg, resumed) = effective_config(args)?;
    if cfg.run.iterations == 0 && cfg.run.time_budget_minutes <= 0.0 {
        bail!("run.iterations = 0 needs run.time_budget_minutes > 0 (the run would never stop)");
    }
    let spec = game_spec(&cfg)?;
    if args.dry_run {
        print!("{}", cfg.to_toml_string()?);
        return Ok(());
    }
    let storage = LocalStorage::open(&args.run)
        .with_context(|| format!("opening run directory {}", args.run.display()))?;
    storage.put(CONFIG_KEY, cfg.to_toml_string()?.as_bytes())?;
    let device = alphazero_nn::device_from_name(&args.device)?;
    eprintln!(
        "{} run {} ({}), device {:?}",
        if resumed { "resuming" } else { "starting" },
        args.run.display(),
        cfg.game.name,
        device
    );
    with_game!(&spec, G, gcfg => Trainer_::<G>::new(cfg.clone(), gcfg.clone(), storage, device, args)?.run())
}

#[allow(non_camel_case_types)]
struct Trainer_<'a, G: Encode> {
    cfg: TrainConfig,
    game_config: G::Config,
    storage: LocalStorage,
    device: alphazero_nn::Device,
    args: &'a TrainArgs,
    tag: GameTag,
    model_config: alphazero_nn::ModelConfig,
}

fn nn_train_config(cfg: &TrainConfig, lr: f64) -> alphazero_nn::TrainConfig {
    alphazero_nn::TrainConfig {
        optimizer: match cfg.train.optimizer {
            Optimizer::Adamw => OptimizerKind::adamw(),
            Optimizer::Sgd => OptimizerKind::Sgd {
                momentum: cfg.train.momentum,
                nesterov: false,
            },
        },
        learning_rate: lr,
        lr_schedule: NnLrSchedule::Constant,
        weight_decay: cfg.train.weight_decay as f32,
        grad_clip_norm: (cfg.train.grad_clip > 0.0).then_some(cfg.train.grad_clip as f32),
        value_loss_weight: 1.0,
    }
}

fn search_config(cfg: &TrainConfig, simulations: u32, noise: bool, seed: u64) -> SearchConfig {
    SearchConfig {
        simulations,
        c_puct: CPuct::Constant(cfg.selfplay.c_puct as f32),
        fpu_reduction: cfg.selfplay.fpu_reduction as f32,
        dirichlet_alpha: cfg.selfplay.dirichlet_alpha as f32,
        dirichlet_epsilon: cfg.selfplay.dirichlet_epsilon as f32,
        root_noise: noise,
        gumbel: cfg.selfplay.gumbel.then(GumbelConfig::default),
        terminal_check: cfg.selfplay.terminal_check,
        seed,
        ..SearchConfig::default()
    }
}

fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<'a, G: Encode> Trainer_<'a, G> {
    fn new(
        cfg: TrainConfig,
        game_config: G::Config,
        storage: LocalStorage,
        device: alphazero_nn::Device,
        args: &'a TrainArgs,
    ) -> Result<Self> {
        let pos = G::new(&game_config);
        let (h, w) = pos.board_shape();
        let model_config =
            alphazero_nn::ModelConfig::new(G::num_planes(&game_config), h, w, pos.num_actions())
                .with_residual_blocks(cfg.model.blocks as usize)
                .with_channels(cfg.model.channels as usize)
                .with_value_hidden(cfg.model.value_hidden as usize);
        model_config.validate()?;
        Ok(Trainer_ {
            tag: GameTag::of::<G>(&game_config),
            cfg,
            game_config,
            storage,
            device,
            args,
            model_config,
        })
    }

    fn path(&self, key: &str) -> Result<PathBuf> {
        let p = self.storage.path_of(key)?;
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        Ok(p)
    }

    fn load_net(&self, key: &str) -> Result<PolicyValueNet> {
        let ck = load_checkpoint(&self.path(key)?, G::NAME, &self.device)?;
        if ck.header.model != self.model_config {
            bail!(
                "{key}: network shape {:?} does not match the run's model {:?}",
                ck.header.model,
                self.model_config
            );
        }
        Ok(ck.model)
    }

    /// Loads every record file, newest first, until the buffer's capacity is covered.
    fn rebuild_buffer(&self, state: &mut RunState) -> Result<ReplayBuffer<G>> {
        let capacity = self.cfg.replay.capacity as usize;
        let keys = self.storage.list("records/")?;
        let num_actions = G::new(&self.game_config).num_actions() as u32;
        let mut files: Vec<RecordFile> = Vec::new();
        let mut positions = 0usize;
        let mut max_id: Option<u64> = None;
        for key in keys.iter().rev() {
            let id = key
                .trim_start_matches("records/")
                .trim_end_matches(".azr")
                .parse::<u64>()
                .ok();
            if let Some(id) = id {
                max_id = Some(max_id.map_or(id, |m: u64| m.max(id)));
            }
            if positions >= capacity {
                continue;
            }
            let bytes = self.storage.get(key)?;
            let file = read_records(&bytes, G::NAME, num_actions)
                .with_context(|| format!("record file {key}"))?;
            positions += file.games.iter().map(|g| g.plies.len()).sum::<usize>();
            files.push(file);
        }
        if let Some(m) = max_id {
            state.next_record_id = state.next_record_id.max(m + 1);
        }
        if let Some(f) = files.first() {
            let end = f.header.first_game_id + f.games.len() as u64;
            state.next_game_id = state.next_game_id.max(end);
        }
        files.reverse();
        let gc = self.game_config.clone();
        let buf = ReplayBuffer::rebuild_from(&files, capacity, |_, _| Ok(G::new(&gc)))?;
        Ok(buf)
    }

    fn run(self) -> Result<()> {
        let cfg = &self.cfg;
        let start_pos = G::new(&self.game_config);
        let mut state = match RunState::load(&self.storage)? {
            Some(s) => s,
            None => RunState::new(cfg.run.seed),
        };
        // Networks: the trainer (latest, with optimizer state) and the champion.
        let lr0 = cfg.train.lr_at(state.iteration, cfg.run.iterations);
        let mut trainer = if self.storage.exists(LATEST_KEY)? {
            let ck = load_checkpoint(&self.path(LATEST_KEY)?, G::NAME, &self.device)?;
            if ck.header.model != self.model_config {
                bail!(
                    "networks/latest.azc has shape {:?}, the run's model is {:?}",
                    ck.header.model,
                    self.model_config
                );
            }
            ck.into_trainer(Some(nn_train_config(cfg, lr0)), &self.device)?
        } else {
            let t = Trainer::new(&self.model_config, nn_train_config(cfg, lr0), &self.device)?;
            save_model(
                &self.path(&champion_key(0))?,
                &self.tag,
                &t.inference_model(),
                &self.model_config,
                0,
            )?;
            save_checkpoint(&self.path(LATEST_KEY)?, &self.tag, &t)?;
            t
        };
        if state.champions.is_empty() {
            state.champions.push(ChampionInfo {
                id: 0,
                iteration: 0,
                key: champion_key(0),
                elo: 0.0,
            });
        }
        let mut champion = self.load_net(&champion_key(state.champion_id))?;
        let mut buffer = self.rebuild_buffer(&mut state)?;
        let metrics = MetricsLog::open(self.storage.root().join("metrics.jsonl"))?;
        eprintln!(
            "iteration {}, champion {}, {} games so far, replay buffer {} positions; network {}x{} ({} parameters)",
            state.iteration,
            state.champion_id,
            state.total_games,
            buffer.len(),
            self.model_config.residual_blocks,
            self.model_config.channels,
            self.model_config.num_params()
        );
        let session_start = Instant::now();
        let elapsed_before = state.elapsed_s;
        let mut champion_elo = state.champions.last().map(|c| c.elo).unwrap_or(0.0);
        loop {
            let elapsed = elapsed_before + session_start.elapsed().as_secs_f64();
            if cfg.run.iterations > 0 && state.iteration >= cfg.run.iterations {
                eprintln!("reached run.iterations = {}", cfg.run.iterations);
                break;
            }
            if cfg.run.time_budget_minutes > 0.0 && elapsed >= cfg.run.time_budget_minutes * 60.0 {
                eprintln!(
                    "reached the time budget of {} minutes",
                    cfg.run.time_budget_minutes
                );
                break;
            }
            let it_start = Instant::now();
            let iter = state.iteration;
            let seed = mix(state.rng_seed, u64::from(iter));

            // 1. Self-play with the champion.
            let sp_cfg = SelfPlayConfig {
                search: search_config(cfg, cfg.selfplay.simulations, true, seed),
                parallel_games: cfg.selfplay.parallel_games as usize,
                temperature_moves: cfg.selfplay.temperature_moves,
                temperature: cfg.selfplay.temperature as f32,
                final_temperature: cfg.selfplay.final_temperature as f32,
                playout_cap: cfg.selfplay.playout_cap.enabled.then_some(PlayoutCap {
                    fast_simulations: cfg.selfplay.playout_cap.fast_simulations,
                    full_probability: cfg.selfplay.playout_cap.full_probability as f32,
                }),
                resign: cfg.selfplay.resign.enabled.then_some(Resignation {
                    threshold: cfg.selfplay.resign.threshold as f32,
                    min_ply: cfg.selfplay.resign.min_ply,
                    no_resign_fraction: cfg.selfplay.resign.no_resign_fraction as f32,
                }),
                max_plies: cfg.selfplay.max_plies,
                seed,
            };
            let evaluator = CachedEvaluator::new(
                NetworkEvaluator::<G>::new(&champion, &self.model_config, &self.device)?,
                200_000,
            );
            let games_n = u64::from(cfg.selfplay.games_per_iteration);
            let pb = self.progress(games_n, format!("iter {iter} self-play"));
            let mut games: Vec<GameRecord> = Vec::with_capacity(games_n as usize);
            let sp = play_selfplay_games(
                &start_pos,
                &evaluator,
                &sp_cfg,
                games_n,
                state.next_game_id,
                |g| {
                    games.push(g);
                    pb.inc(1);
                },
            )?;
            pb.finish_and_clear();
            let header = RecordHeader {
                game: G::NAME.to_string(),
                config: format!("{:?}", self.game_config),
                num_actions: start_pos.num_actions() as u32,
                first_game_id: state.next_game_id,
            };
            let bytes = write_records(&header, &games)?;
            let rkey = record_key(state.next_record_id);
            self.storage.put(&rkey, &bytes)?;
            let mut new_positions = 0u64;
            for (i, g) in games.iter().enumerate() {
                new_positions +=
                    buffer.add_game(start_pos.clone(), g, state.next_game_id + i as u64)? as u64;
            }
            state.next_record_id += 1;
            state.next_game_id += games.len() as u64;
            let selfplay_secs = it_start.elapsed().as_secs_f64();

            // 2.–3. Training on the replay buffer.
            let batch_size = cfg.train.batch_size as usize;
            let lr = cfg.train.lr_at(iter, cfg.run.iterations);
            trainer.set_config(nn_train_config(cfg, lr))?;
            let steps = if buffer.len() >= batch_size.min(256) {
                cfg.train.steps_for(new_positions)
            } else {
                0
            };
            let opts = SampleOptions {
                recent_fraction: cfg.replay.recent_fraction as f32,
                recent_window: cfg.replay.recent_window as usize,
                symmetries: cfg.replay.symmetries,
                hard_mining: cfg.replay.hard_mining,
                threat_weight: cfg.replay.threat_weight as f32,
            };
            let mut rng = StdRng::seed_from_u64(mix(seed, 1));
            let (c, h, w) = (
                self.model_config.input_planes,
                self.model_config.board_height,
                self.model_config.board_width,
            );
            let a = self.model_config.num_actions;
            let mut batch = Batch::with_capacity([c, h, w], a, batch_size);
            let (mut planes, mut legal, mut pi) =
                (vec![0f32; c * h * w], vec![false; a], vec![0f32; a]);
            let mut moves = Vec::new();
            let mut sums = [0f64; 4];
            let pb = self.progress(steps, format!("iter {iter} training"));
            let train_start = Instant::now();
            for _ in 0..steps {
                batch.clear();
                for s in buffer.sample_batch(batch_size, &mut rng, &opts) {
                    let p = &s.sample.position;
                    p.encode(u32::from(s.sample.repetitions), &mut planes);
                    legal.iter_mut().for_each(|l| *l = false);
                    p.legal_moves(&mut moves);
                    for &m in &moves {
                        legal[p.move_to_action(m)] = true;
                    }
                    pi.iter_mut().for_each(|x| *x = 0.0);
                    for &(act, prob) in &s.sample.policy {
                        pi[act as usize] = prob;
                    }
                    batch.push(&planes, &legal, &pi, s.sample.z)?;
                }
                let st = trainer.train_step(&batch)?;
                sums[0] += f64::from(st.policy_loss);
                sums[1] += f64::from(st.value_loss);
                sums[2] += f64::from(st.policy_entropy);
                sums[3] += f64::from(st.total_loss);
                pb.inc(1);
            }
            pb.finish_and_clear();
            let train_secs = train_start.elapsed().as_secs_f64();
            let n = steps.max(1) as f64;
            let candidate = trainer.inference_model();
            let kl = if steps > 0 {
                kl_divergence(
                    &champion,
                    &candidate,
                    &self.model_config,
                    &batch,
                    &self.device,
                )? as f64
            } else {
                0.0
            };
            save_checkpoint(&self.path(LATEST_KEY)?, &self.tag, &trainer)?;

            // 4. Gating.
            let gate_start = Instant::now();
            let (gating, promoted) = if steps == 0 {
                (None, false)
            } else if cfg.gating.enabled {
                let (m, llr, promote) = self.gate(&start_pos, &candidate, &champion, seed)?;
                (
                    Some(GatingMetrics {
                        wins: m.wins,
                        draws: m.draws,
                        losses: m.losses,
                        llr,
                        promoted: promote,
                    }),
                    promote,
                )
            } else {
                (None, true)
            };
            let gate_secs = gate_start.elapsed().as_secs_f64();
            if promoted {
                let id = state.champion_id + 1;
                if let Some(g) = &gating {
                    let games = g.wins + g.draws + g.losses;
                    if games > 0 {
                        let score =
                            (f64::from(g.wins) + 0.5 * f64::from(g.draws)) / f64::from(games);
                        let d = rating::elo_from_score(score.clamp(0.02, 0.98));
                        champion_elo += d;
                    }
                }
                save_model(
                    &self.path(&champion_key(id))?,
                    &self.tag,
                    &candidate,
                    &self.model_config,
                    trainer.step(),
                )?;
                state.champion_id = id;
                state.champions.push(ChampionInfo {
                    id,
                    iteration: iter + 1,
                    key: champion_key(id),
                    elo: champion_elo,
                });
                champion = candidate;
            }
            if cfg.run.snapshot_every > 0 && (iter + 1).is_multiple_of(cfg.run.snapshot_every) {
                let key = format!("networks/snapshot-{:05}.azc", iter + 1);
                save_model(
                    &self.path(&key)?,
                    &self.tag,
                    &trainer.inference_model(),
                    &self.model_config,
                    trainer.step(),
                )?;
            }

            // Bookkeeping: metrics, plots, then the state (last: it marks the iteration done).
            let it_secs = it_start.elapsed().as_secs_f64();
            state.iteration += 1;
            state.total_games += games.len() as u64;
            state.total_positions += new_positions;
            state.elapsed_s = elapsed_before + session_start.elapsed().as_secs_f64();
            let m = IterationMetrics {
                iteration: iter,
                unix_time: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs_f64())
                    .unwrap_or(0.0),
                elapsed_s: state.elapsed_s,
                games: games.len() as u64,
                total_games: state.total_games,
                positions: new_positions,
                total_positions: state.total_positions,
                buffer_fill: buffer.len() as u64,
                buffer_capacity: buffer.capacity() as u64,
                train_steps: steps,
                lr,
                policy_loss: sums[0] / n,
                value_loss: sums[1] / n,
                total_loss: sums[3] / n,
                policy_entropy: sums[2] / n,
                kl,
                gating: gating.clone(),
                champion_id: state.champion_id,
                elo: champion_elo,
                selfplay_games_per_hour: sp.games as f64 / selfplay_secs.max(1e-9) * 3600.0,
                network_time_fraction: sp.evaluator_share(),
            };
            metrics.append(&m)?;
            let all = dedup_metrics(metrics.read_all()?);
            if let Err(e) =
                alphazero_train::plots::write_plots(&all, &self.storage.root().join("plots"))
            {
                eprintln!("warning: plots not written: {e}");
            }
            state.save(&self.storage)?;
            let gate_text = match &gating {
                Some(g) => format!(
                    "gating +{}={}-{} {}",
                    g.wins,
                    g.draws,
                    g.losses,
                    if g.promoted {
                        "PROMOTED"
                    } else {
                        "kept champion"
                    }
                ),
                None if promoted => "promoted (no gating)".into(),
                None => "no training yet".into(),
            };
            eprintln!(
                "iter {iter}: {} games ({:.0}/h, W/D/L {}/{}/{}, {:.1} plies avg), {} new positions, buffer {}; \
                 {steps} steps: policy {:.3} value {:.3} entropy {:.3} KL {:.4}; {gate_text}; champion {} ({:+.0} Elo); \
                 {:.0}s (self-play {:.0}s, {:.0}% in network, batch {:.1}; train {:.0}s; gating {:.0}s)",
                sp.games,
                m.selfplay_games_per_hour,
                sp.first_wins,
                sp.draws,
                sp.second_wins,
                sp.plies as f64 / sp.games.max(1) as f64,
                new_positions,
                buffer.len(),
                m.policy_loss,
                m.value_loss,
                m.policy_entropy,
                kl,
                state.champion_id,
                champion_elo,
                it_secs,
                selfplay_secs,
                100.0 * sp.evaluator_share(),
                sp.mean_batch(),
                train_secs,
                gate_secs
            );
        }
        eprintln!(
            "done: {} iterations, {} games, champion {} at {}",
            state.iteration,
            state.total_games,
            state.champion_id,
            self.storage
                .path_of(&champion_key(state.champion_id))?
                .display()
        );
        Ok(())
    }

    /// The gating match: candidate (A) against champion (B), in chunks so that the SPRT can
    /// stop it early. Returns the match, the LLR and whether to promote.
    fn gate(
        &self,
        start: &G,
        candidate: &PolicyValueNet,
        champion: &PolicyValueNet,
        seed: u64,
    ) -> Result<(MatchOutcome, f64, bool)> {
        let g = &self.cfg.gating;
        let a = CachedEvaluator::new(
            NetworkEvaluator::<G>::new(candidate, &self.model_config, &self.device)?,
            100_000,
        );
        let b = CachedEvaluator::new(
            NetworkEvaluator::<G>::new(champion, &self.model_config, &self.device)?,
            100_000,
        );
        let chunk = if g.sprt.enabled {
            10.min(g.games)
        } else {
            g.games
        }
        .max(2);
        let mut total = MatchOutcome::default();
        let mut llr = 0.0;
        let mut played = 0;
        let mut chunk_index = 0u64;
        let pb = self.progress(u64::from(g.games), "gating".into());
        while played < g.games {
            let n = chunk.min(g.games - played);
            let mc = MatchConfig {
                games: n,
                search: search_config(
                    &self.cfg,
                    g.simulations,
                    false,
                    mix(seed, 100 + chunk_index),
                ),
                opening_random_plies: g.opening_random_plies,
                max_plies: self.cfg.selfplay.max_plies,
                parallel_games: n as usize,
                seed: mix(seed, 200 + chunk_index),
            };
            let m = play_match(start, &a, &b, &mc)?;
            played += m.wins + m.draws + m.losses;
            total.wins += m.wins;
            total.draws += m.draws;
            total.losses += m.losses;
            total.games.extend(m.games);
            pb.inc(u64::from(n));
            chunk_index += 1;
            if g.sprt.enabled {
                let sprt = rating::Sprt {
                    elo0: g.sprt.elo0,
                    elo1: g.sprt.elo1,
                    alpha: g.sprt.alpha,
                    beta: g.sprt.beta,
                };
                let (w, d, l) = (total.wins.into(), total.draws.into(), total.losses.into());
                llr = sprt.llr(w, d, l);
                match sprt.decision(w, d, l) {
                    rating::SprtDecision::AcceptH1 => {
                        pb.finish_and_clear();
                        return Ok((total, llr, true));
                    }
                    rating::SprtDecision::AcceptH0 => {
                        pb.finish_and_clear();
                        return Ok((total, llr, false));
                    }
                    rating::SprtDecision::Continue => {}
                }
            }
        }
        pb.finish_and_clear();
        let promote = total.score() >= g.win_rate;
        Ok((total, llr, promote))
    }

    fn progress(&self, len: u64, msg: String) -> ProgressBar {
        let pb = ProgressBar::new(len);
        if self.args.quiet {
            pb.set_draw_target(ProgressDrawTarget::hidden());
        }
        pb.set_style(
            ProgressStyle::with_template("{msg:>22} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_message(msg);
        pb
    }
}

/// Keeps the last line of each iteration (a run killed after writing metrics but before its
/// state re-runs that iteration).
fn dedup_metrics(all: Vec<IterationMetrics>) -> Vec<IterationMetrics> {
    let mut out: Vec<IterationMetrics> = Vec::with_capacity(all.len());
    for m in all {
        while out.last().is_some_and(|l| l.iteration >= m.iteration) {
            out.pop();
        }
        out.push(m);
    }
    out
}
