//! `alphazero distill`: a fast Gomoku evaluator (line-pattern tables, `alphazero_mixnet`)
//! distilled from a ResNet teacher: make labelled positions from the teacher's own games,
//! train the student on them, measure it against the teacher on held-out games.
use std::path::{Path, PathBuf};
use std::time::Instant;

use alphazero_engine::{device, load_network_cached};
use alphazero_game::Game;
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_mixnet::{
    generate, measure, samples_from_bytes, samples_to_bytes, Agreement, GenerateOptions, Mixnet,
    MixnetConfig, MixnetEvaluator, MixnetFile, Sample, TrainOptions, Trainer,
};
use alphazero_nn::load_any_checkpoint;
use alphazero_registry::GameSpec;
use anyhow::{bail, Context, Result};

use alphazero_engine::files::write_atomic;

/// Arguments of `alphazero distill`.
#[derive(clap::Args, Debug)]
pub struct DistillArgs {
    #[command(subcommand)]
    step: Step,
}

#[derive(clap::Subcommand, Debug)]
enum Step {
    /// Plays games with moves drawn from the teacher's policy and writes every position with
    /// the teacher's policy and value (a sample file, `.azd`).
    Data(DataArgs),
    /// Trains a student (`.azm`) on sample files, every tenth game held out and measured.
    Train(TrainArgs),
    /// The student against its teacher on held-out positions: top-1 agreement, value MSE,
    /// and each one's evaluations a second on one core.
    Gates(GatesArgs),
}

#[derive(clap::Args, Debug)]
struct DataArgs {
    /// The teacher network (`.azc`, a Gomoku network); the board and rule are its own.
    #[arg(long)]
    teacher: PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    games: u32,
    /// Games in flight at once (their positions go to the teacher as one batch).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    parallel: u32,
    /// τ of the moves drawn from the teacher's policy.
    #[arg(long, default_value_t = 1.0, value_parser = parse_positive)]
    temperature: f32,
    /// Random opening stones before the teacher plays (0 up to this many, uniform).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=40))]
    opening_stones: u32,
    /// Number of the first game (give each run its own range to merge files).
    #[arg(long, default_value_t = 0)]
    first_game: u32,
    /// Seed of the openings and the moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Device of the teacher: `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// The sample file to write.
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args, Debug)]
struct TrainArgs {
    /// Sample files (`alphazero distill data`); repeatable.
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// The student to write (`.azm`).
    #[arg(long)]
    out: PathBuf,
    /// Continue from this student instead of random weights (its sizes win).
    #[arg(long)]
    init: Option<PathBuf>,
    /// Training time in minutes (wall clock).
    #[arg(long, default_value_t = 10.0, value_parser = parse_positive)]
    minutes: f32,
    /// Games whose number is a multiple of this are held out (never trained on).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    heldout_every: u32,
    /// Features a point (a table row's length).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(4..=256))]
    features: u16,
    /// Line half-width: cells at offsets −H..=H along each direction.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=5))]
    half_width: u8,
    /// Hidden units of the value head.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=1024))]
    value_hidden: u16,
    /// One table for each colour to move (renju's two sides play different games).
    #[arg(long)]
    colour_tables: bool,
    /// Samples a step.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    batch: u32,
    /// Adam's learning rate of the dense layers (annealed by a cosine over the run to a
    /// tenth).
    #[arg(long, default_value_t = 2e-3, value_parser = parse_positive)]
    lr: f32,
    /// Adam's learning rate of the line table (annealed likewise).
    #[arg(long, default_value_t = 5e-3, value_parser = parse_positive)]
    table_lr: f32,
    /// Weight of the value's squared error beside the policy's cross-entropy.
    #[arg(long, default_value_t = 2.0, value_parser = parse_positive)]
    value_weight: f32,
    /// Seed of the initial weights and the batches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(clap::Args, Debug)]
struct GatesArgs {
    /// The student (`.azm`).
    #[arg(long)]
    student: PathBuf,
    /// The teacher (`.azc`).
    #[arg(long)]
    teacher: PathBuf,
    /// Sample files; only the held-out games (see `--heldout-every`) are measured.
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// As in `distill train`.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    heldout_every: u32,
    /// Positions a batch when timing (the play search evaluates its leaves in batches).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    batch: u32,
}

fn parse_positive(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a positive number")),
    }
}

/// Runs `alphazero distill`.
pub fn run(args: &DistillArgs) -> Result<()> {
    match &args.step {
        Step::Data(a) => data(a),
        Step::Train(a) => train(a),
        Step::Gates(a) => gates(a),
    }
}

/// The Gomoku board and rule of a teacher checkpoint.
fn teacher_config(path: &Path, device: &alphazero_nn::Device) -> Result<GomokuConfig> {
    let ck =
        load_any_checkpoint(path, device).with_context(|| format!("teacher {}", path.display()))?;
    match ck.header.game {
        GameSpec::Gomoku { size, rule } => Ok(GomokuConfig::new(size, rule)?),
        other => bail!(
            "teacher {} is a network for {}; distillation is for Gomoku",
            path.display(),
            other.words()
        ),
    }
}

fn data(a: &DataArgs) -> Result<()> {
    super::check_output_path("--out", &a.out)?;
    let dev = device(&a.device)?;
    let config = teacher_config(&a.teacher, &dev)?;
    let (teacher, desc) = load_network_cached::<Gomoku>(&a.teacher, &config, &dev, 0)?;
    eprintln!("teacher: {desc}");
    let options = GenerateOptions {
        games: a.games,
        parallel: a.parallel,
        temperature: a.temperature,
        opening_stones: a.opening_stones,
        seed: a.seed,
        first_game: a.first_game,
        ..GenerateOptions::default()
    };
    let start = Instant::now();
    let bar = indicatif::ProgressBar::new(u64::from(a.games));
    let samples = generate(teacher.as_ref(), &config, &options, |games, positions| {
        bar.set_position(u64::from(games));
        bar.set_message(format!("{positions} positions"));
    })?;
    bar.finish_and_clear();
    write_atomic(&a.out, &samples_to_bytes(config.rule, &samples))?;
    println!(
        "{} games, {} positions in {:.0} s ({:.0} positions/s) -> {}",
        a.games,
        samples.len(),
        start.elapsed().as_secs_f64(),
        samples.len() as f64 / start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}

/// The samples' rule and every sample of `files`, split into (training, held-out) by game
/// number.
fn read_samples(files: &[PathBuf], heldout_every: u32) -> Result<(Rule, Vec<Sample>, Vec<Sample>)> {
    let mut train = Vec::new();
    let mut heldout = Vec::new();
    let mut rules = None;
    for f in files {
        let bytes = std::fs::read(f).with_context(|| format!("reading {}", f.display()))?;
        let (rule, samples) =
            samples_from_bytes(&bytes).with_context(|| f.display().to_string())?;
        match rules {
            Some((r, ref first)) if r != rule => bail!(
                "{} holds {rule} games but {} holds {r} games: one rule a student",
                f.display(),
                first
            ),
            None => rules = Some((rule, f.display().to_string())),
            _ => {}
        }
        for s in samples {
            if s.game % heldout_every == 0 {
                heldout.push(s);
            } else {
                train.push(s);
            }
        }
    }
    let rule = rules.map_or(Rule::Freestyle, |(r, _)| r);
    Ok((rule, train, heldout))
}

fn read_student(path: &Path) -> Result<MixnetFile> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    MixnetFile::from_bytes(&bytes).with_context(|| path.display().to_string())
}

fn train(a: &TrainArgs) -> Result<()> {
    super::check_output_path("--out", &a.out)?;
    let (data_rule, train, heldout) = read_samples(&a.data, a.heldout_every)?;
    if train.is_empty() || heldout.is_empty() {
        bail!(
            "{} training and {} held-out samples: need both (more games, or another \
             --heldout-every)",
            train.len(),
            heldout.len()
        );
    }
    let (size, rule_file) = (train[0].size, a.data[0].display().to_string());
    let (net, rule, provenance) = match &a.init {
        Some(p) => {
            let f = read_student(p)?;
            if f.rule != data_rule {
                bail!(
                    "{} was distilled for {} and the samples are {data_rule} games",
                    p.display(),
                    f.rule
                );
            }
            (f.net, f.rule, format!("{} continued", f.provenance))
        }
        None => {
            let config = MixnetConfig {
                half_width: a.half_width,
                features: a.features,
                value_hidden: a.value_hidden,
                colour_tables: a.colour_tables,
            };
            (Mixnet::new(config, a.seed), data_rule, String::new())
        }
    };
    eprintln!(
        "{} training samples, {} held-out; {} weights ({} table rows)",
        train.len(),
        heldout.len(),
        net.parameter_count(),
        net.tables() * net.lines().rows()
    );
    let options = TrainOptions {
        batch: a.batch as usize,
        lr: a.lr,
        table_lr: a.table_lr,
        value_weight: a.value_weight,
        seed: a.seed,
    };
    let mut trainer = Trainer::new(net, options);
    let budget = f64::from(a.minutes) * 60.0;
    let start = Instant::now();
    let mut last_report = 0.0;
    let mut losses = 0.0f64;
    let mut since = 0u32;
    let probe: Vec<Sample> = heldout
        .iter()
        .step_by((heldout.len() / 4000).max(1))
        .cloned()
        .collect();
    loop {
        let elapsed = start.elapsed().as_secs_f64();
        if elapsed >= budget {
            break;
        }
        // Cosine from 1 to 0.1 over the budget.
        let progress = (elapsed / budget) as f32;
        trainer.set_lr_scale(0.1 + 0.9 * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
        losses += f64::from(trainer.step(&train));
        since += 1;
        if elapsed - last_report >= 60.0 {
            last_report = elapsed;
            let m = measure(trainer.net(), &probe);
            println!(
                "{:>5.1} min  step {:>7}  loss {:.4}  held-out: top-1 {:.1}%  value MSE {:.4}  KL {:.3}",
                elapsed / 60.0,
                trainer.steps(),
                losses / f64::from(since),
                100.0 * m.top1,
                m.value_mse,
                m.policy_kl
            );
            losses = 0.0;
            since = 0;
        }
    }
    let steps = trainer.steps();
    let net = trainer.into_net();
    let m = measure(&net, &heldout);
    let file = MixnetFile {
        rule,
        size,
        provenance: format!(
            "{provenance}{} steps of {} on {} samples ({rule_file} …)",
            steps,
            a.batch,
            train.len()
        ),
        net,
    };
    write_atomic(&a.out, &file.to_bytes())?;
    println!(
        "{steps} steps; held-out ({} positions): top-1 {:.1}%, value MSE {:.4}, KL {:.3} -> {}",
        m.samples,
        100.0 * m.top1,
        m.value_mse,
        m.policy_kl,
        a.out.display()
    );
    Ok(())
}

fn gates(a: &GatesArgs) -> Result<()> {
    let student = read_student(&a.student)?;
    let dev = device("cpu")?;
    let config = teacher_config(&a.teacher, &dev)?;
    let (_, _, heldout) = read_samples(&a.data, a.heldout_every)?;
    if heldout.is_empty() {
        bail!("no held-out samples in the data files");
    }
    let m = measure(&student.net, &heldout);
    println!(
        "held-out positions: {}  top-1 agreement: {:.1}%  value MSE: {:.4}  policy KL: {:.3}",
        m.samples,
        100.0 * m.top1,
        m.value_mse,
        m.policy_kl
    );
    // Speed: the same positions through each evaluator, `--batch` at a time, one thread.
    let positions: Vec<Gomoku> = heldout
        .iter()
        .take(2000)
        .map(|s| position_of(s, &config))
        .collect::<Result<_>>()?;
    let (teacher, _) = load_network_cached::<Gomoku>(&a.teacher, &config, &dev, 0)?;
    let student_eval = MixnetEvaluator::new(student.net);
    let (t_rate, s_rate) = rates(
        teacher.as_ref(),
        &student_eval,
        &positions,
        a.batch as usize,
    )?;
    println!(
        "evaluations a second, one thread, batches of {}: teacher {:.0}, student {:.0} ({:.1}×)",
        a.batch,
        t_rate,
        s_rate,
        s_rate / t_rate
    );
    let bound = symmetry_bound(teacher.as_ref(), &positions[..positions.len().min(1000)])?;
    println!(
        "the teacher against itself under the 8 board symmetries ({} positions): top-1 \
         agreement at most {:.1}%, value MSE at least {:.4} for any student that is exactly \
         symmetric",
        bound.samples,
        100.0 * bound.top1,
        bound.value_mse
    );
    Ok(())
}

/// How far an exactly symmetric student can agree with a teacher that is not: the teacher
/// labels each position in the frame it was played in, and a symmetric student gives one answer
/// for all 8 frames. Per position, the best such student picks the point the teacher ranks
/// first in most frames (`top1`: the mean share of frames that agree with that point) and the
/// mean of the teacher's 8 values (`value_mse`: the mean variance of those values).
fn symmetry_bound(teacher: &dyn Evaluator<Gomoku>, positions: &[Gomoku]) -> Result<Agreement> {
    let Some(first) = positions.first() else {
        bail!("no positions to measure the teacher's symmetry on");
    };
    let (actions, syms) = (first.num_actions(), first.num_symmetries());
    let mut logits = vec![0.0; syms * actions];
    let mut values = vec![0.0; syms];
    let (mut top1, mut mse) = (0.0f64, 0.0f64);
    for p in positions {
        let frames: Vec<Gomoku> = (0..syms).map(|s| p.transform(s)).collect();
        let reqs: Vec<EvalRequest<'_, Gomoku>> = frames
            .iter()
            .map(|q| EvalRequest {
                position: q,
                history: &[],
            })
            .collect();
        teacher.evaluate(&reqs, &mut logits, &mut values)?;
        let legal: Vec<usize> = p
            .legal_moves_vec()
            .into_iter()
            .map(|m| p.move_to_action(m))
            .collect();
        // Each frame's first choice, named in the untransformed frame.
        let mut firsts: Vec<usize> = (0..syms)
            .filter_map(|s| {
                let row = &logits[s * actions..(s + 1) * actions];
                legal.iter().copied().max_by(|&a, &b| {
                    row[p.transform_action(s, a)].total_cmp(&row[p.transform_action(s, b)])
                })
            })
            .collect();
        firsts.sort_unstable();
        let mode = firsts
            .chunk_by(|a, b| a == b)
            .map(<[usize]>::len)
            .max()
            .unwrap_or(0);
        top1 += mode as f64 / syms as f64;
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / syms as f64;
        mse += values
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / syms as f64;
    }
    let n = positions.len() as f64;
    Ok(Agreement {
        samples: positions.len(),
        top1: top1 / n,
        value_mse: mse / n,
        policy_kl: 0.0,
    })
}

/// The position of a sample (stones only; the side to move from the colour).
fn position_of(s: &Sample, config: &GomokuConfig) -> Result<Gomoku> {
    let n = usize::from(s.size);
    let mut black = Vec::new();
    let mut white = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let mv = alphazero_gomoku::GomokuMove::new(x as u8, y as u8);
            let (own, opp) = (s.own[y] >> x & 1 == 1, s.opp[y] >> x & 1 == 1);
            let black_stone = (own && s.black_to_move) || (opp && !s.black_to_move);
            if own || opp {
                if black_stone {
                    black.push(mv);
                } else {
                    white.push(mv);
                }
            }
        }
    }
    let side = if s.black_to_move {
        alphazero_game::Side::First
    } else {
        alphazero_game::Side::Second
    };
    Ok(Gomoku::from_stones(config, &black, &white, side)?)
}

/// Evaluations a second of the teacher and of the student over `positions`, `batch` at a
/// time, timed in alternation (a slice of the teacher's work, then the student's on the
/// same positions, and again) so that both see the same load on a shared machine; at
/// least two seconds of the teacher's time.
fn rates(
    teacher: &dyn Evaluator<Gomoku>,
    student: &dyn Evaluator<Gomoku>,
    positions: &[Gomoku],
    batch: usize,
) -> Result<(f64, f64)> {
    let actions = positions[0].num_actions();
    let mut logits = vec![0.0; batch * actions];
    let mut values = vec![0.0; batch];
    let mut run = |eval: &dyn Evaluator<Gomoku>, chunk: &[Gomoku]| -> Result<f64> {
        let reqs: Vec<EvalRequest<'_, Gomoku>> = chunk
            .iter()
            .map(|p| EvalRequest {
                position: p,
                history: &[],
            })
            .collect();
        let start = Instant::now();
        eval.evaluate(
            &reqs,
            &mut logits[..chunk.len() * actions],
            &mut values[..chunk.len()],
        )?;
        Ok(start.elapsed().as_secs_f64())
    };
    let (mut t_time, mut s_time, mut t_count, mut s_count) = (0.0, 0.0, 0usize, 0usize);
    let chunks: Vec<&[Gomoku]> = positions.chunks(batch).collect();
    let mut i = 0;
    while t_time < 2.0 {
        // The teacher on one chunk, the student on the next 16 (about as long).
        let c = chunks[i % chunks.len()];
        t_time += run(teacher, c)?;
        t_count += c.len();
        for k in 0..16 {
            let c = chunks[(i + k) % chunks.len()];
            s_time += run(student, c)?;
            s_count += c.len();
        }
        i += 1;
    }
    Ok((t_count as f64 / t_time, s_count as f64 / s_time))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::EvalError;
    use alphazero_mixnet::MixnetEvaluator;

    fn positions() -> Vec<Gomoku> {
        let config = GomokuConfig::new(15, Rule::Freestyle).unwrap();
        [
            ["h8", "i9", "j9", "g7", "k10"],
            ["a1", "c3", "h8", "h9", "o15"],
        ]
        .iter()
        .map(|moves| {
            let mut pos = Gomoku::new(&config);
            for mv in moves {
                pos.play(pos.parse_move(mv).unwrap()).unwrap();
            }
            pos
        })
        .collect()
    }

    /// Prefers the highest action index and values a position by its first stone: neither is
    /// invariant under the board's symmetries.
    struct Lopsided;

    impl Evaluator<Gomoku> for Lopsided {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Gomoku>],
            logits: &mut [f32],
            values: &mut [f32],
        ) -> std::result::Result<(), EvalError> {
            let a = logits.len() / batch.len();
            for (i, r) in batch.iter().enumerate() {
                for (k, l) in logits[i * a..(i + 1) * a].iter_mut().enumerate() {
                    *l = k as f32;
                }
                // The first occupied point in reading order: a different stone in each frame.
                let empty: Vec<usize> = r
                    .position
                    .legal_moves_vec()
                    .into_iter()
                    .map(|m| r.position.move_to_action(m))
                    .collect();
                let first = (0..a).find(|k| !empty.contains(k)).unwrap_or(0);
                values[i] = first as f32 / a as f32;
            }
            Ok(())
        }
    }

    #[test]
    fn an_exactly_symmetric_teacher_bounds_nothing() {
        let eval = MixnetEvaluator::new(Mixnet::new(MixnetConfig::default(), 3));
        let bound = symmetry_bound(&eval, &positions()).unwrap();
        assert_eq!(bound.samples, 2);
        assert_eq!(bound.top1, 1.0);
        assert!(bound.value_mse < 1e-9, "{bound:?}");
    }

    #[test]
    fn a_teacher_that_prefers_one_corner_agrees_with_itself_in_a_quarter_of_the_frames() {
        // The bottom-right corner's orbit under the 8 symmetries is the 4 corners (all free
        // in this position), each the first choice of 2 frames.
        let bound = symmetry_bound(&Lopsided, &positions()[..1]).unwrap();
        assert_eq!(bound.top1, 0.25);
        assert!(bound.value_mse > 0.0, "{bound:?}");
    }
}
