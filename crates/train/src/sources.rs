//! Where a run's configuration comes from, and the one precedence rule between the sources:
//! **saved config < `--config` file < flags (`--game`, `--size`, `--rule`) < `--set`**.
//!
//! A new run starts from the game's defaults, then the `--config` file, the flags and the
//! `--set` overrides, in that order. A resumed run starts from its saved `config.toml`;
//! `--config` is refused there (it would replace the run's settings wholesale), `--set`
//! changes what it names, and the game and the model shape never change. Two sources that
//! name the game, board size or rule differently are an error naming both, never a silent
//! choice.

use crate::config::{self, ConfigError, TrainConfig};
use crate::error::PipelineError;
use crate::run_dir::RunDir;
use crate::storage::{Storage, StorageError};
use alphazero_registry::{GameSpec, SpecError};

/// The text of the run's saved [`RunDir::CONFIG`] in `storage` (the run named `run` in
/// messages), `None` when the storage holds no run yet: the [`ConfigSources::saved`] of a run
/// on any storage (a local directory before it is opened: [`crate::local::saved_config`]).
///
/// # Errors
/// [`PipelineError::Storage`] when it cannot be read, [`PipelineError::Invalid`] when it is
/// not text.
pub fn saved_config(storage: &dyn Storage, run: &str) -> Result<Option<String>, PipelineError> {
    match storage.get(RunDir::CONFIG) {
        Ok(b) => String::from_utf8(b).map(Some).map_err(|e| {
            PipelineError::Invalid(format!(
                "the run's saved {} in {run} is not text: {e}",
                RunDir::CONFIG
            ))
        }),
        Err(StorageError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Saves `cfg` as the run's [`RunDir::CONFIG`] in `storage` (every key, in the current layout):
/// what [`saved_config`] reads when the run resumes.
///
/// # Errors
/// [`PipelineError::Config`] when a value has no TOML form, [`PipelineError::Storage`] when
/// the write fails.
pub fn save_config(storage: &dyn Storage, cfg: &TrainConfig) -> Result<(), PipelineError> {
    Ok(storage.put(RunDir::CONFIG, cfg.to_toml_string()?.as_bytes())?)
}

/// An error resolving a run's configuration from its sources.
#[derive(Debug, thiserror::Error)]
pub enum SourcesError {
    /// Two sources disagree, or a source asks for something a run cannot do; the sentence
    /// names both and the way out.
    #[error("{0}")]
    Conflict(String),
    /// A source's text is wrong; `context` names the source.
    #[error("{context}")]
    In {
        /// The source, e.g. `the run's saved config.toml` or `config my.toml`.
        context: String,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An override or value is wrong (the error names the key).
    #[error(transparent)]
    Config(#[from] ConfigError),
}

fn conflict<T>(text: String) -> Result<T, SourcesError> {
    Err(SourcesError::Conflict(text))
}

fn within(context: impl Into<String>) -> impl FnOnce(ConfigError) -> SourcesError {
    let context = context.into();
    move |e| SourcesError::In {
        context,
        source: Box::new(e),
    }
}

/// The sources of a run's configuration, as given on the command line and found in the run.
#[derive(Clone, Debug, Default)]
pub struct ConfigSources<'a> {
    /// The run as named in messages (e.g. its directory).
    pub run: &'a str,
    /// The text of the run's saved `config.toml`, when the run exists.
    pub saved: Option<&'a str>,
    /// The `--config` file: how to name it, and its text.
    pub file: Option<(&'a str, &'a str)>,
    /// `--game`.
    pub game: Option<&'a str>,
    /// `--size` (Gomoku board side).
    pub size: Option<u8>,
    /// `--rule` (Gomoku rule).
    pub rule: Option<&'a str>,
    /// `--set key=value` overrides, in order.
    pub overrides: &'a [String],
}

impl ConfigSources<'_> {
    /// Whether the user set a `model.*` key: by `--set model.…` or in the `--config` file.
    ///
    /// # Errors
    /// As [`ConfigSources::resolve`] for a bad override or file.
    pub fn sets_model(&self) -> Result<bool, SourcesError> {
        for o in self.overrides {
            let (key, _) = config::override_key_value(o)?;
            if key == "model" || key.starts_with("model.") {
                return Ok(true);
            }
        }
        match self.file {
            Some((name, text)) => {
                Ok(config::sets_section_in(text, "model")
                    .map_err(within(format!("config {name}")))?)
            }
            None => Ok(false),
        }
    }

    /// Rejects `--size` / `--rule` for a game without those options (any but Gomoku); a bad
    /// size or rule for Gomoku is left to the config's validation, which names the key.
    fn check_gomoku_flags(&self, game: &str) -> Result<(), SourcesError> {
        if let Err(SpecError::NotForGame { .. }) = GameSpec::from_parts(game, self.size, self.rule)
        {
            return conflict(format!(
                "--size and --rule apply to gomoku only, not {game}"
            ));
        }
        Ok(())
    }

    /// The `game.name` values given by `--set` overrides, in order.
    fn override_games(&self) -> Result<Vec<String>, SourcesError> {
        let mut out = Vec::new();
        for o in self.overrides {
            if let Some(g) = config::game_name_in_override(o)? {
                out.push(g);
            }
        }
        Ok(out)
    }

    /// Rejects `--size` / `--rule` that disagree with a `--set game.size=` / `game.rule=`.
    fn check_flags_against_overrides(&self) -> Result<(), SourcesError> {
        for o in self.overrides {
            let (key, value) = config::override_key_value(o)?;
            match (key.as_str(), self.size, self.rule) {
                ("game.size", Some(size), _) if value.trim() != size.to_string() => {
                    return conflict(format!(
                        "--size {size} and --set game.size={value} disagree; give the size once"
                    ))
                }
                ("game.rule", _, Some(rule)) if !value.trim().eq_ignore_ascii_case(rule.trim()) => {
                    return conflict(format!(
                        "--rule {rule} and --set game.rule={value} disagree; give the rule once"
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The effective configuration and whether the run is resumed (it has a saved config).
    ///
    /// # Errors
    /// [`SourcesError::Conflict`] when sources disagree on the game, board size or rule,
    /// when a new run names no game, when `--config` given for an existing run gives other
    /// settings than the run's saved config (the same file resumes), or when
    /// the overrides change an existing run's game or model shape; [`SourcesError::In`] and
    /// [`SourcesError::Config`] for a text or value that is wrong.
    pub fn resolve(&self) -> Result<(TrainConfig, bool), SourcesError> {
        self.check_flags_against_overrides()?;
        let mut overrides = self.overrides.to_vec();
        if let Some(s) = self.size {
            overrides.push(format!("game.size={s}"));
        }
        if let Some(r) = self.rule {
            overrides.push(format!("game.rule=\"{r}\""));
        }
        let set_games = self.override_games()?;
        if let Some(g) = self.game {
            if let Some(other) = set_games.iter().find(|s| s.as_str() != g) {
                return conflict(format!(
                    "--game {g} and --set game.name={other} disagree; give the game once"
                ));
            }
        }
        if let Some(saved) = self.saved {
            return self.resume(saved, &overrides, &set_games);
        }
        let text = self.file.map_or("", |(_, t)| t);
        let file_name = self.file.map_or("", |(n, _)| n);
        let file_game =
            config::game_name_in(text).map_err(within(format!("config {file_name}")))?;
        if let Some((name, text)) = self.file {
            let file_size = config::game_field_in(text, "size")?;
            if let (Some(size), Some(f)) = (self.size, &file_size) {
                if f.trim() != size.to_string() {
                    return conflict(format!(
                        "--size {size} and game.size = {f} in {name} disagree; give the size once"
                    ));
                }
            }
            let file_rule = config::game_field_in(text, "rule")?;
            if let (Some(rule), Some(f)) = (self.rule, &file_rule) {
                if !f.trim().eq_ignore_ascii_case(rule.trim()) {
                    return conflict(format!(
                        "--rule {rule} and game.rule = {f:?} in {name} disagree; give the rule once"
                    ));
                }
            }
            if let (Some(g), Some(f)) = (self.game, &file_game) {
                if g != f {
                    return conflict(format!(
                        "--game {g} and game.name = {f:?} in {name} disagree; give the game once"
                    ));
                }
            }
        }
        // The game the run will have: the last --set game.name, else --game, else the file's.
        let game = set_games
            .last()
            .cloned()
            .or_else(|| self.game.map(str::to_string))
            .or(file_game);
        let Some(game) = game else {
            return conflict(format!(
                "--game is required for a new run: {} holds no run yet; give --game {} (or a \
                 --config that sets game.name)",
                self.run,
                GameSpec::NAMES.join("|")
            ));
        };
        self.check_gomoku_flags(&game)?;
        let mut pre = Vec::new();
        if let Some(g) = self.game {
            pre.push(format!("game.name={g}"));
        }
        pre.extend(overrides);
        Ok((TrainConfig::parse(text, &pre)?, false))
    }

    /// A resumed run: its saved config with the overrides; the game and model stay.
    fn resume(
        &self,
        saved: &str,
        overrides: &[String],
        set_games: &[String],
    ) -> Result<(TrainConfig, bool), SourcesError> {
        let old = TrainConfig::parse(saved, &[] as &[String])
            .map_err(within(format!("the run's saved {}", RunDir::CONFIG)))?;
        let old_game = old.game.name();
        if let Some(g) = self.game {
            if g != old_game {
                return conflict(format!(
                    "run directory {} holds a {old_game} run; --game {g} does not match",
                    self.run
                ));
            }
        }
        self.check_gomoku_flags(old_game)?;
        if let Some(g) = set_games.iter().find(|s| **s != old_game) {
            return conflict(format!(
                "run directory {} holds a {old_game} run; --set game.name={g} does not match",
                self.run
            ));
        }
        let new = old.with_overrides(overrides)?;
        // The command that made the run, given again: its --config must give what the run
        // has (the saved config holds the file's settings), or it would be ignored unseen.
        if let Some((name, text)) = self.file {
            let from_file =
                TrainConfig::parse(text, overrides).map_err(within(format!("config {name}")))?;
            let differ = config::differing_keys(&from_file, &new);
            if !differ.is_empty() {
                return conflict(format!(
                    "--config {name} differs from the settings of the existing run {} in {}; \
                     the run keeps its saved config: resume without --config, and change a \
                     key with --set",
                    self.run,
                    differ.join(", ")
                ));
            }
        }
        if new.game != old.game {
            return conflict(format!(
                "the game of an existing run cannot change: it is {}, the options give {}",
                old.game.words(),
                new.game.words()
            ));
        }
        if new.model != old.model {
            let shape = |m: &crate::config::ModelSection| {
                format!(
                    "{} blocks × {} channels, value head {}{}",
                    m.blocks,
                    m.channels,
                    m.value_hidden,
                    if m.global_pooling {
                        ", global pooling"
                    } else {
                        ""
                    }
                )
            };
            return conflict(format!(
                "the model shape of an existing run cannot change: it is {}, the options give \
                 {}; give another shape to a new run (another --run)",
                shape(&old.model),
                shape(&new.model)
            ));
        }
        Ok((new, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(overrides: &[String]) -> ConfigSources<'_> {
        ConfigSources {
            run: "runs/x",
            overrides,
            ..ConfigSources::default()
        }
    }

    #[test]
    fn precedence_is_saved_then_file_then_flags_then_set() {
        let file = "[game]\nname = \"gomoku\"\nsize = 9\n[selfplay]\nsimulations = 10\n\
                    [train]\nlr = 0.5\n";
        let set = vec!["selfplay.simulations=20".to_string()];
        let s = ConfigSources {
            file: Some(("f.toml", file)),
            rule: Some("Renju"),
            ..sources(&set)
        };
        let (cfg, resumed) = s.resolve().unwrap();
        assert!(!resumed);
        assert_eq!(cfg.game.options().0, Some(9), "the file's size");
        assert_eq!(
            cfg.game.options().1,
            Some("renju"),
            "the flag's rule, canonical"
        );
        assert_eq!(cfg.selfplay.simulations, 20, "--set over the file");
        assert_eq!(cfg.train.lr, 0.5, "the file over the defaults");
        // Resumed: the saved config, then --set; a --config that gives other settings is
        // refused naming the keys.
        let saved = cfg.to_toml_string().unwrap();
        let set = vec!["selfplay.simulations=30".to_string()];
        let s = ConfigSources {
            saved: Some(&saved),
            ..sources(&set)
        };
        let (again, resumed) = s.resolve().unwrap();
        assert!(resumed);
        assert_eq!(again.selfplay.simulations, 30);
        assert_eq!(again.train.lr, 0.5, "the saved value stays");
        let s = ConfigSources {
            saved: Some(&saved),
            file: Some(("f.toml", file)),
            ..sources(&[])
        };
        let e = s.resolve().unwrap_err().to_string();
        assert!(
            e.contains("--config f.toml differs from the settings of the existing run runs/x in")
                && e.contains("game.rule")
                && e.contains("selfplay.simulations"),
            "{e}"
        );
        // The command that made the run, given again, resumes it.
        let set = vec!["selfplay.simulations=20".to_string()];
        let s = ConfigSources {
            saved: Some(&saved),
            file: Some(("f.toml", file)),
            rule: Some("Renju"),
            ..sources(&set)
        };
        let (same, resumed) = s.resolve().unwrap();
        assert!(resumed);
        assert_eq!(same, cfg);
        // A model of another shape is refused naming both shapes.
        let set = vec!["model.blocks=2".to_string()];
        let s = ConfigSources {
            saved: Some(&saved),
            ..sources(&set)
        };
        let e = s.resolve().unwrap_err().to_string();
        let ours = format!("it is {} blocks", cfg.model.blocks);
        assert!(
            e.contains("model shape") && e.contains(&ours) && e.contains("give 2 blocks"),
            "{e}"
        );
    }

    #[test]
    fn sources_that_disagree_on_the_game_are_an_error_naming_both() {
        let set = vec!["game.name=xiangqi".to_string()];
        let s = ConfigSources {
            game: Some("gomoku"),
            ..sources(&set)
        };
        let e = s.resolve().unwrap_err().to_string();
        assert_eq!(
            e,
            "--game gomoku and --set game.name=xiangqi disagree; give the game once"
        );
        let e = sources(&[]).resolve().unwrap_err().to_string();
        assert!(
            e.starts_with("--game is required for a new run: runs/x"),
            "{e}"
        );
    }
}
