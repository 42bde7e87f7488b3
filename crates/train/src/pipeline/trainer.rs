//! Opening the trainer a run goes on with: from a network given at the start, from the
//! latest checkpoint, or new.

use std::path::Path;

use alphazero_nn::{checkpoint_from_bytes, Encode, Trainer};

use super::Pipeline;
use crate::error::PipelineError;
use crate::init::InitNetwork;
use crate::observer::Observer;
use crate::run_dir::RunDir;
use crate::settings::trainer_config;
use crate::state::RunState;

impl<G: Encode> Pipeline<'_, G> {
    /// The trainer to go on with: from `init` for a run being started from a network (its
    /// weights, a fresh optimizer at step 0; recorded in `state`), else from
    /// [`RunDir::LATEST`] (one saved before the game's encoder gained planes, renju's
    /// forbidden points, goes on with them at zero weight and a fresh optimizer, said through
    /// `observer`), else a new random network. A new trainer is saved at once as champion 0
    /// and as [`RunDir::LATEST`].
    ///
    /// # Errors
    /// A checkpoint that cannot be read, or whose shape is not the run's model.
    pub fn open_trainer(
        &self,
        state: &mut RunState,
        init: Option<&InitNetwork>,
        lr: f64,
        observer: &dyn Observer,
    ) -> Result<Trainer, PipelineError> {
        let tc = trainer_config(&self.cfg, lr);
        if let Some(init) = init {
            let t = self.trainer_from_init(init, tc)?;
            state.init = Some(init.info.clone());
            return self.first_networks(t);
        }
        if self.storage.exists(RunDir::LATEST)? {
            return self.trainer_from_latest(state, tc, observer);
        }
        self.first_networks(Trainer::new(&self.model_config, tc, &self.device)?)
    }

    /// A trainer at step 0 with settings `tc` on the network of `init`: its trunk under fresh
    /// heads (`--init-trunk`), its network grown into the run's larger model
    /// (`--init-grow`), or its network as it is (`--init`, a size-independent network taking
    /// this run's board).
    fn trainer_from_init(
        &self,
        init: &InitNetwork,
        tc: alphazero_nn::TrainerConfig,
    ) -> Result<Trainer, PipelineError> {
        let ck = checkpoint_from_bytes(Path::new(&init.name), &init.bytes, G::NAME, &self.device)?;
        let model = if init.info.trunk_only {
            // The file's stem and blocks (InitNetwork::trunk_from_file checked their
            // sizes) under fresh heads of the run's model.
            Trainer::new(&self.model_config, tc.clone(), &self.device)?
                .inference_model()
                .with_trunk_of(ck.model.with_input_planes(self.model_config.input_planes))
        } else if init.info.grown {
            // The file's network inside a fresh one of the run's larger model
            // (InitNetwork::grown_from_file checked that it can grow into it).
            let fresh =
                Trainer::new(&self.model_config, tc.clone(), &self.device)?.inference_model();
            let file = crate::init::with_run_planes::<G>(&ck.header.model, &self.game_config);
            ck.model
                .without_aux_heads()
                .with_input_planes(file.input_planes)
                .grown_into(&file.without_aux(), fresh, &self.model_config)
                .map_err(|e| PipelineError::from(e).context(init.name.clone()))?
        } else {
            // A size-independent network of another board takes this run's.
            let (model, file) = ck
                .model
                .for_positions_of::<G>(&ck.header.model.without_aux(), &self.game_config);
            if file != self.model_config {
                return Err(PipelineError::Invalid(format!(
                    "{}: network shape {:?} does not match the run's model {:?}",
                    init.name, ck.header.model, self.model_config
                )));
            }
            model
        };
        Ok(Trainer::from_model(
            model,
            &self.model_config,
            tc,
            &self.device,
            0,
        )?)
    }

    /// The trainer of [`RunDir::LATEST`] with settings `tc`: its network and optimizer
    /// state, or, for one saved before the game's encoder gained planes, its network with
    /// the added planes at zero weight and a fresh optimizer (said through `observer`).
    fn trainer_from_latest(
        &self,
        state: &RunState,
        tc: alphazero_nn::TrainerConfig,
        observer: &dyn Observer,
    ) -> Result<Trainer, PipelineError> {
        let way_on = format!(
            "to go on from the champion instead, copy {} over it (the optimizer state then \
             starts afresh)",
            RunDir::champion_key(state.champion_id)
        );
        let ck = self.read_checkpoint(RunDir::LATEST).map_err(|e| {
            e.context(format!(
                "{} (the trainer's network and optimizer state) cannot be loaded; {way_on}",
                RunDir::LATEST
            ))
        })?;
        let have = ck.header.model.without_aux();
        if have.input_planes != self.model_config.input_planes {
            // Saved by a build whose encoder had fewer planes (renju's forbidden points):
            // the network reads the added ones at zero weight; the optimizer state has
            // the old shapes, so it starts afresh.
            let (model, fitted) = ck
                .model
                .clone()
                .for_positions_of::<G>(&ck.header.model, &self.game_config);
            if fitted.without_aux() == self.model_config {
                observer.info(&format!(
                    "{} takes {} input planes, this build's {} encoder {}: going on with \
                     the added planes at zero weight and a fresh optimizer state",
                    RunDir::LATEST,
                    have.input_planes,
                    G::spec(&self.game_config).words(),
                    self.model_config.input_planes
                ));
                return Ok(Trainer::from_model(
                    model,
                    &self.model_config,
                    tc,
                    &self.device,
                    ck.header.step,
                )?);
            }
        }
        if have != self.model_config {
            return Err(PipelineError::Invalid(format!(
                "{} holds a {} network, the run's model is {}; {way_on}",
                RunDir::LATEST,
                crate::init::shape_words(&have),
                crate::init::shape_words(&self.model_config)
            )));
        }
        Ok(ck.into_trainer(Some(tc), &self.device)?)
    }

    /// A new run's first networks: `t` saved as champion 0 and as the trainer's latest state.
    fn first_networks(&self, t: Trainer) -> Result<Trainer, PipelineError> {
        self.save_network(&RunDir::champion_key(0), &t.inference_model(), 0)?;
        self.save_trainer(RunDir::LATEST, &t)?;
        Ok(t)
    }
}
