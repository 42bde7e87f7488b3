//! Warm start: a run's networks from a checkpoint (`alphazero train --init FILE`).
//!
//! The file must be a network of the run's game whose input planes, board and action count
//! fit it; a different network size is refused, except that a new run with no `model.*`
//! setting takes the file's size. Only the weights are taken (with the batch-norm
//! statistics): the optimizer and its step count start afresh. The file becomes champion 0
//! and the trainer's latest state, and the run state records it ([`InitInfo`]). A run that
//! already has committed networks refuses any other file; the file it started from (same
//! fingerprint, any path) just resumes it.

use std::path::Path;

use alphazero_nn::{checkpoint_from_bytes, Device, Encode};
use alphazero_registry::GameSpec;

use crate::config::{PolicyHead, TrainConfig, ValueHead};
use crate::error::PipelineError;
use crate::observer::Observer;
use crate::settings::network_config;
use crate::state::{file_fingerprint, InitInfo, RunState};
use crate::storage::Storage;

/// A network's size as `--init` compares it: residual blocks, channels, value head width,
/// global pooling, a convolutional policy head, the policy head's channels, a pooled value
/// head.
type Arch = (
    usize,
    usize,
    usize,
    Option<alphazero_nn::GlobalPooling>,
    bool,
    usize,
    bool,
);

/// `m`'s size as `--init` compares it.
fn arch(m: &alphazero_nn::ModelConfig) -> Arch {
    (
        m.residual_blocks,
        m.channels,
        m.value_hidden,
        m.global_pooling.clone(),
        m.policy_planes.is_some(),
        m.policy_channels,
        m.value_pool.is_some(),
    )
}

/// A network's size in words, as the trainer names it: `BxC (value head V[ pooled][, global
/// pooling of N channels in blocks i, j (counted from 1)][, convolutional policy head of P
/// channels])`, e.g. `5x48 (value head 48, global pooling of 8 channels in blocks 3)`.
pub(crate) fn shape_words(m: &alphazero_nn::ModelConfig) -> String {
    arch_words(&arch(m))
}

/// `global pooling of N channels in blocks i, j`, the blocks counted from 1 as users count them.
fn pooling_words(g: &alphazero_nn::GlobalPooling) -> String {
    let blocks: Vec<String> = g.blocks.iter().map(|i| (i + 1).to_string()).collect();
    format!(
        "global pooling of {} channels in block{} {}",
        g.channels,
        if blocks.len() == 1 { "" } else { "s" },
        blocks.join(", ")
    )
}

fn arch_words((b, c, v, g, conv, pc, pooled): &Arch) -> String {
    let pooling = g
        .as_ref()
        .map_or(String::new(), |g| format!(", {}", pooling_words(g)));
    let head = match (conv, pc) {
        (true, _) => format!(", convolutional policy head of {pc} channels"),
        (false, 2) => String::new(),
        (false, _) => format!(", policy head of {pc} channels"),
    };
    let value = if *pooled { " pooled" } else { "" };
    format!("{b}x{c} (value head {v}{value}{pooling}{head})")
}

/// The checkpoint file `path` given by `flag` for a run of game `G`, as an [`InitNetwork`]
/// of the whole network (named `--init models/gomoku.azc` in errors), and the checkpoint.
fn read<G: Encode>(
    flag: &str,
    path: &Path,
    game_config: &G::Config,
    device: &Device,
) -> Result<(InitNetwork, alphazero_nn::Checkpoint), PipelineError> {
    let name = format!("{flag} {}", path.display());
    let bytes = std::fs::read(path)
        .map_err(|e| PipelineError::from(e).context(format!("{name}: cannot read it")))?;
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let run_game = G::spec(game_config).words();
    let ck = checkpoint_from_bytes(path, &bytes, G::NAME, device).map_err(|e| {
        PipelineError::from(e).context(format!("{name} is no network for this {run_game} run"))
    })?;
    let init = InitNetwork {
        name,
        info: InitInfo {
            path: absolute.display().to_string(),
            fingerprint: file_fingerprint(&bytes),
            step: ck.header.step,
            trained_for: ck.header.game.words(),
            trunk_only: false,
            grown: false,
        },
        bytes,
    };
    Ok((init, ck))
}

/// A checked network to start a new run's networks from.
#[derive(Clone, Debug)]
pub struct InitNetwork {
    /// How the network is named in errors (`--init models/gomoku.azc`).
    pub name: String,
    /// The checkpoint file's bytes.
    pub bytes: Vec<u8>,
    /// What the run state records of it.
    pub info: InitInfo,
}

/// `m` with the input planes of the run's positions where it takes them
/// ([`alphazero_nn::ModelConfig::input_planes_for`]: renju's forbidden points): how
/// `--init-trunk` and `--init-grow` take a network of the other plane count, as `--init` does.
pub(crate) fn with_run_planes<G: Encode>(
    m: &alphazero_nn::ModelConfig,
    game_config: &G::Config,
) -> alphazero_nn::ModelConfig {
    let mut m = m.clone();
    if let Some(planes) = m.input_planes_for::<G>(game_config) {
        m.input_planes = planes;
    }
    m
}

/// A network's trunk as `--init-trunk` compares it: residual blocks, channels, global pooling.
type Trunk = (usize, usize, Option<alphazero_nn::GlobalPooling>);

impl InitNetwork {
    /// Reads the checkpoint file `path` and checks it against a run of game `G` under
    /// `game_config` before anything is written: its input planes, board and action count
    /// must fit, and its network size must be `cfg.model`'s. A new run (`resumed` false)
    /// whose user did not set `model.*` (`user_model` false) takes the file's size into
    /// `cfg.model` (said through `observer`); otherwise a different size is an error naming
    /// both. A file trained under other rules of the same shapes is used with a warning.
    ///
    /// # Errors
    /// The file cannot be read; [`PipelineError::Invalid`] or the checkpoint error; each
    /// names the file.
    pub fn from_file<G: Encode>(
        path: &Path,
        game_config: &G::Config,
        cfg: &mut TrainConfig,
        resumed: bool,
        user_model: bool,
        device: &Device,
        observer: &dyn Observer,
    ) -> Result<InitNetwork, PipelineError> {
        let (init, ck) = read::<G>("--init", path, game_config, device)?;
        let name = init.name.clone();
        let run_game = G::spec(game_config).words();
        let m = &ck.header.model;
        let trained_for = ck.header.game.words();
        let pos = G::new(game_config);
        let (h, w) = pos.board_shape();
        let want = (G::num_planes(game_config), h, w, pos.num_actions());
        let have = (m.input_planes, m.board_height, m.board_width, m.num_actions);
        // A size-independent network starts a run on another board of its game, and a
        // network that differs from the run's positions in the planes after the common ones
        // (renju's forbidden points) takes the run's.
        let resized = m.for_positions_of::<G>(game_config);
        if let Some(r) = &resized {
            if (r.board_height, r.board_width) != (m.board_height, m.board_width) {
                observer.info(&format!(
                    "{name}: a size-independent network trained on {}x{}, started on {}x{}",
                    m.board_height, m.board_width, r.board_height, r.board_width
                ));
            }
            if r.input_planes != m.input_planes {
                let how = if r.input_planes > m.input_planes {
                    "the added planes' weights start at 0"
                } else {
                    "its last planes, which this run's positions lack, dropped"
                };
                observer.info(&format!(
                    "{name}: a network of {} input planes, started on this run's {} ({how})",
                    m.input_planes, r.input_planes
                ));
            }
        }
        if want != have && resized.is_none() {
            // A game with a board-size option (Gomoku) can be trained on the network's board.
            let sized = u8::try_from(m.board_height)
                .is_ok_and(|n| GameSpec::from_parts(G::NAME, Some(n), None).is_ok());
            let hint = if sized && !resumed && m.board_height == m.board_width {
                format!("; to train on its board, give --size {}", m.board_height)
            } else {
                String::new()
            };
            return Err(PipelineError::Invalid(format!(
                "{name}: the network was trained for {trained_for} ({} planes {}×{}, {} \
                 actions) and does not fit this run's {run_game} ({} planes {}×{}, {} \
                 actions){hint}",
                have.0, have.1, have.2, have.3, want.0, want.1, want.2, want.3
            )));
        }
        let file_size = arch(m);
        let run_size = arch(&network_config::<G>(cfg, game_config));
        if file_size != run_size {
            let file_keys = format!(
                "model.blocks={}, model.channels={}, model.value_hidden={}, \
                 model.global_pooling={}{}",
                file_size.0,
                file_size.1,
                file_size.2,
                file_size.3.is_some(),
                file_size.3.as_ref().map_or(String::new(), |g| format!(
                    ", model.global_pooling_channels={}",
                    g.channels
                ))
            ) + if file_size.4 {
                ", model.policy_head=conv"
            } else {
                ""
            } + &format!(", model.policy_channels={}", file_size.5)
                + if file_size.6 {
                    ", model.value_head=pooled"
                } else {
                    ""
                };
            if resumed || user_model {
                let how = if resumed {
                    "the model of an existing run cannot change".to_string()
                } else {
                    let grow = if m
                        .without_aux()
                        .can_grow_into(&network_config::<G>(cfg, game_config).without_aux())
                        .is_ok()
                    {
                        "; to grow it into the run's larger model, give it as --init-grow"
                    } else {
                        ""
                    };
                    format!(
                        "drop the model.* settings to take the file's size, or set \
                         {file_keys}{grow}"
                    )
                };
                return Err(PipelineError::Invalid(format!(
                    "{name}: the network is {}, the run's model is {}; {how}",
                    arch_words(&file_size),
                    arch_words(&run_size)
                )));
            }
            let as_u32 = |v: usize, key: &str| {
                u32::try_from(v)
                    .map_err(|_| PipelineError::Invalid(format!("{name}: {key} {v} is too large")))
            };
            cfg.model.blocks = as_u32(file_size.0, "blocks")?;
            cfg.model.channels = as_u32(file_size.1, "channels")?;
            cfg.model.value_hidden = as_u32(file_size.2, "value_hidden")?;
            cfg.model.global_pooling = file_size.3.is_some();
            cfg.model.global_pooling_channels = match &file_size.3 {
                Some(g) => as_u32(g.channels, "global pooling channels")?,
                None => 0,
            };
            cfg.model.policy_head = if file_size.4 {
                PolicyHead::Conv
            } else {
                PolicyHead::Dense
            };
            cfg.model.policy_channels = as_u32(file_size.5, "policy channels")?;
            cfg.model.value_head = if file_size.6 {
                ValueHead::Pooled
            } else {
                ValueHead::Dense
            };
            cfg.validate()
                .map_err(|e| PipelineError::from(e).context(format!("{name}: its network size")))?;
            if arch(&network_config::<G>(cfg, game_config)) != file_size {
                return Err(PipelineError::Invalid(format!(
                    "{name}: the network is {}, whose global pooling blocks are not those \
                     model.global_pooling places ({file_keys} gives {})",
                    arch_words(&file_size),
                    arch_words(&arch(&network_config::<G>(cfg, game_config)))
                )));
            }
            observer.info(&format!(
                "model {} taken from {name} (no model.* setting given)",
                arch_words(&file_size)
            ));
        }
        if trained_for != run_game {
            observer.warning(&format!(
                "{name} was trained for {trained_for}; this run is {run_game}"
            ));
        }
        Ok(init)
    }

    /// Reads the checkpoint file `path` for a run of game `G` under `game_config` whose
    /// networks take the file's trunk (stem and residual blocks) and fresh heads
    /// (`--init-trunk`): how a run changes its heads (a conv policy head, a pooled value head)
    /// or its board without starting from random weights. The file's input planes and trunk
    /// (blocks, channels, global pooling) must be `cfg.model`'s; its heads and board may
    /// differ.
    ///
    /// # Errors
    /// The file cannot be read; [`PipelineError::Invalid`] naming the file and both sizes,
    /// with the `model.*` settings that take the file's trunk; the checkpoint error.
    pub fn trunk_from_file<G: Encode>(
        path: &Path,
        game_config: &G::Config,
        cfg: &TrainConfig,
        device: &Device,
    ) -> Result<InitNetwork, PipelineError> {
        let (mut init, ck) = read::<G>("--init-trunk", path, game_config, device)?;
        let name = init.name.clone();
        let run_game = G::spec(game_config).words();
        let m = &with_run_planes::<G>(&ck.header.model, game_config);
        let planes = G::num_planes(game_config);
        if m.input_planes != planes {
            return Err(PipelineError::Invalid(format!(
                "{name}: the network takes {} input planes, this run's {run_game} {planes}",
                m.input_planes
            )));
        }
        let trunk = |m: &alphazero_nn::ModelConfig| -> Trunk {
            (m.residual_blocks, m.channels, m.global_pooling.clone())
        };
        let run = network_config::<G>(cfg, game_config);
        if trunk(m) != trunk(&run) {
            let words = |(b, c, g): &Trunk| match g {
                None => format!("{b}x{c}"),
                Some(g) => format!("{b}x{c} with {}", pooling_words(g)),
            };
            return Err(PipelineError::Invalid(format!(
                "{name}: the network's trunk is {}, the run's {}; set model.blocks={}, \
                 model.channels={}, model.global_pooling={}{}",
                words(&trunk(m)),
                words(&trunk(&run)),
                m.residual_blocks,
                m.channels,
                m.global_pooling.is_some(),
                m.global_pooling.as_ref().map_or(String::new(), |g| format!(
                    ", model.global_pooling_channels={}",
                    g.channels
                ))
            )));
        }
        init.info.trunk_only = true;
        Ok(init)
    }

    /// Reads the checkpoint file `path` for a run of game `G` under `game_config` whose
    /// networks are the file's network grown into the run's larger model (`--init-grow`): more
    /// blocks, channels or value-head units, the same function at first
    /// ([`alphazero_nn::PolicyValueNet::grown_into`]). How a campaign moves to a larger trunk
    /// without starting from random weights. The file's input, board and heads must be the
    /// run's, and neither may have global pooling.
    ///
    /// # Errors
    /// The file cannot be read; [`PipelineError::Invalid`] naming the file, both sizes and
    /// what stops growing; the checkpoint error.
    pub fn grown_from_file<G: Encode>(
        path: &Path,
        game_config: &G::Config,
        cfg: &TrainConfig,
        device: &Device,
    ) -> Result<InitNetwork, PipelineError> {
        let (mut init, ck) = read::<G>("--init-grow", path, game_config, device)?;
        let file = with_run_planes::<G>(&ck.header.model, game_config).without_aux();
        let run = network_config::<G>(cfg, game_config).without_aux();
        file.can_grow_into(&run).map_err(|e| {
            PipelineError::Invalid(format!(
                "{}: the network ({}x{}, value head {}) cannot grow into the run's model \
                 ({}x{}, value head {}): {e}",
                init.name,
                file.residual_blocks,
                file.channels,
                file.value_hidden,
                run.residual_blocks,
                run.channels,
                run.value_hidden
            ))
        })?;
        init.info.grown = true;
        Ok(init)
    }

    /// Whether the run's networks are to be made from this network: yes for a run without a
    /// committed iteration or `--init` (nothing of it counts yet), no for a run started from
    /// the same file (same fingerprint), which resumes; an error for any other run that already has
    /// networks (a run's networks are never replaced). `run` names the run in messages.
    ///
    /// # Errors
    /// [`PipelineError::Invalid`] naming both networks; [`PipelineError::State`].
    pub fn needed(
        &self,
        storage: &dyn Storage,
        run: &str,
        observer: &dyn Observer,
    ) -> Result<bool, PipelineError> {
        let Some(state) = RunState::load(storage)? else {
            return Ok(true);
        };
        // A new run saves its state before its first networks: until its first iteration
        // commits (and without an --init recorded) nothing of it counts yet.
        if state.init.is_none() && state.iteration == 0 && state.trainer_step.is_none() {
            return Ok(true);
        }
        let given = &self.name;
        // The flag as given (`--init`, `--init-grow`, `--init-trunk`): the name's first word.
        let flag = given.split_whitespace().next().unwrap_or("--init");
        match &state.init {
            Some(i) if i.fingerprint == self.info.fingerprint => {
                observer.info(&format!(
                    "{given}: the run was started from this network ({}); resuming it",
                    i.path
                ));
                Ok(false)
            }
            Some(i) => Err(PipelineError::Invalid(format!(
                "run {run} was started from {} ({}); {given} is another network ({}), and a \
                 run's networks are never replaced: drop {flag} to resume the run, or give a \
                 new --run directory",
                i.path, i.fingerprint, self.info.fingerprint
            ))),
            None => Err(PipelineError::Invalid(format!(
                "run {run} already has networks (iteration {}, champion {}) that did not come \
                 from --init; {given} would replace them: drop {flag} to resume the run, or \
                 give a new --run directory",
                state.iteration, state.champion_id
            ))),
        }
    }
}
