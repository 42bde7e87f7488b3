//! Search configuration with the papers' defaults, its validation, and its form in a config
//! file (serde: the training configuration's `[selfplay.search]`).

use std::fmt;

use serde::de::{self, value::MapAccessDeserializer, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::knobs::{self, KnobError};

/// The exploration coefficient of PUCT.
///
/// The selection score of a child `a` of a node with `N` visits is
/// `Q(a) + c(N) · P(a) · sqrt(N) / (1 + N(a))`.
///
/// In a config file (serde) a number is [`CPuct::Constant`] (`c_puct = 1.5`) and a table
/// `{ c_base, c_init }` is [`CPuct::AlphaZero`] (`c_puct = { c_base = 19652, c_init = 1.25 }`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CPuct {
    /// A fixed `c`.
    Constant(f32),
    /// AlphaZero's growing coefficient `c(N) = ln((1 + N + c_base) / c_base) + c_init`
    /// (Silver et al. 2018 pseudocode: `c_base` 19652, `c_init` 1.25).
    AlphaZero {
        /// `c_base` (19652 in the paper).
        c_base: f32,
        /// `c_init` (1.25 in the paper).
        c_init: f32,
    },
}

impl Default for CPuct {
    fn default() -> Self {
        CPuct::AlphaZero {
            c_base: 19652.0,
            c_init: 1.25,
        }
    }
}

impl CPuct {
    /// The coefficient for a parent with `parent_visits` visits.
    #[inline]
    pub fn value(self, parent_visits: f32) -> f32 {
        match self {
            CPuct::Constant(c) => c,
            CPuct::AlphaZero { c_base, c_init } => {
                ((1.0 + parent_visits + c_base) / c_base).ln() + c_init
            }
        }
    }
}

/// The table form of [`CPuct::AlphaZero`] in a config file.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AlphaZeroCPuct {
    c_base: f32,
    c_init: f32,
}

impl Serialize for CPuct {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            CPuct::Constant(c) => s.serialize_f32(c),
            CPuct::AlphaZero { c_base, c_init } => AlphaZeroCPuct { c_base, c_init }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for CPuct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CPuctVisitor;
        impl<'de> Visitor<'de> for CPuctVisitor {
            type Value = CPuct;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number (a constant c_puct) or a table { c_base, c_init }")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<CPuct, E> {
                Ok(CPuct::Constant(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<CPuct, E> {
                Ok(CPuct::Constant(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<CPuct, E> {
                Ok(CPuct::Constant(v as f32))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CPuct, A::Error> {
                let a = AlphaZeroCPuct::deserialize(MapAccessDeserializer::new(map))?;
                Ok(CPuct::AlphaZero {
                    c_base: a.c_base,
                    c_init: a.c_init,
                })
            }
        }
        d.deserialize_any(CPuctVisitor)
    }
}

/// Settings of the Gumbel root (Danihelka et al. 2022, "Policy improvement by planning with
/// Gumbel"). Defaults are the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GumbelConfig {
    /// `m`: how many root actions are sampled without replacement by Gumbel-top-k (16).
    pub num_sampled_actions: u32,
    /// `c_visit` of the monotone transform `σ(q) = (c_visit + max_b N(b)) · c_scale · q` (50).
    pub c_visit: f32,
    /// `c_scale` of `σ` (1.0). `q` is first mapped from [-1, 1] to [0, 1].
    pub c_scale: f32,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            num_sampled_actions: 16,
            c_visit: 50.0,
            c_scale: 1.0,
        }
    }
}

/// `gumbel` in a config file: `false` (off), `true` (the paper's [`GumbelConfig`]) or a
/// table of its fields.
mod gumbel_setting {
    use super::*;

    pub fn serialize<S: Serializer>(g: &Option<GumbelConfig>, s: S) -> Result<S::Ok, S::Error> {
        match g {
            None => s.serialize_bool(false),
            Some(g) if *g == GumbelConfig::default() => s.serialize_bool(true),
            Some(g) => g.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GumbelConfig>, D::Error> {
        struct GumbelVisitor;
        impl<'de> Visitor<'de> for GumbelVisitor {
            type Value = Option<GumbelConfig>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a boolean (the paper's Gumbel root or none) or a table \
                     { num_sampled_actions, c_visit, c_scale }",
                )
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<Self::Value, E> {
                Ok(on.then(GumbelConfig::default))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                GumbelConfig::deserialize(MapAccessDeserializer::new(map)).map(Some)
            }
        }
        d.deserialize_any(GumbelVisitor)
    }
}

/// An optional setting written as a plain value in a config file, its type's default (0)
/// meaning `None` ("off"), as the training configuration has always written it.
mod zero_is_off {
    use super::*;

    pub fn serialize<T, S>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error>
    where
        T: Serialize + Default,
        S: Serializer,
    {
        match v {
            Some(v) => v.serialize(s),
            None => T::default().serialize(s),
        }
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: Deserialize<'de> + Default + PartialEq,
        D: Deserializer<'de>,
    {
        let v = T::deserialize(d)?;
        Ok((v != T::default()).then_some(v))
    }
}

/// How to search: every setting of the search itself. `Default` gives the AlphaZero paper's
/// values.
///
/// How long a search runs, whether its root gets noise and its seed are the caller's, for
/// each search: [`crate::SearchBudget`] (and [`crate::RunLimits`] for nodes, time and depth);
/// the temperature of the move choice is the caller's argument to [`crate::select_move`].
///
/// # In a config file
/// Serde (de)serializes it as a table of all its fields by name — the training
/// configuration's `[selfplay.search]` — with unknown keys refused and missing keys taking the
/// defaults below. [`SearchConfig::c_puct`] is a number or a table, [`SearchConfig::gumbel`]
/// `false`, `true` or a table; the optional tactical budgets and
/// [`SearchConfig::dirichlet_alpha_total`] are written as a number, 0 meaning `None` (so
/// `Some(0)` has no written form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// PUCT exploration coefficient (AlphaZero `c_base` 19652, `c_init` 1.25).
    pub c_puct: CPuct,
    /// First-play urgency reduction (0.25, as in lc0 / KataGo): an unvisited child is valued
    /// at the parent's Q minus `fpu_reduction · sqrt(sum of the priors of visited children)`.
    /// At the root with noise the same rule applies.
    pub fpu_reduction: f32,
    /// Dirichlet concentration `α` of the root noise (0.3, the paper's chess value).
    pub dirichlet_alpha: f32,
    /// Weight `ε` of the root noise: `P = (1 − ε) P + ε η` (0.25).
    pub dirichlet_epsilon: f32,
    /// Virtual loss per in-flight visit (1.0): while a leaf waits for the evaluator, each
    /// edge on its path counts as visited once more with value −`virtual_loss`.
    pub virtual_loss: f32,
    /// `K`: how many leaves one tree collects per evaluator call (8). 1 = plain serial MCTS.
    pub leaves_per_batch: u32,
    /// Expand [`alphazero_game::Game::candidate_moves`] instead of all legal moves (true).
    pub use_candidate_moves: bool,
    /// MCTS-solver: propagate proven wins/losses/draws and stop searching decided subtrees
    /// (true).
    pub solver: bool,
    /// Decisive-move check (false): when a node is expanded, play each of its moves once and
    /// record the ones that end the game as terminal children, so that a win in one is seen
    /// (and, with the solver, proven) on the first visit instead of after visiting every
    /// sibling. Costs one `play` + `adjudicate` per candidate per expansion (measured: Gomoku
    /// 15×15 ~2.5× slower, Xiangqi ~12× slower, since its adjudication generates moves);
    /// makes a search without a network (uniform / rollout evaluator) tactically sound one
    /// ply deep. Off by default, as in AlphaZero.
    pub terminal_check: bool,
    /// Gumbel root with sequential halving instead of PUCT at the root (`None`).
    #[serde(with = "gumbel_setting")]
    pub gumbel: Option<GumbelConfig>,
    /// The game's own tactical search at every expanded node ([`alphazero_game::Game::tactical_proof`],
    /// Gomoku: fives, unstoppable threats and VCF), with this node budget per call; its proven
    /// wins and losses enter the MCTS-solver. `None` (default): not called. `Some(0)`: only
    /// the cheap checks (Gomoku: fives and unstoppable threats, no VCF).
    #[serde(with = "zero_is_off")]
    pub tactical_budget: Option<u32>,
    /// The game's deeper tactical search at the root only
    /// ([`alphazero_game::Game::root_tactical_proof`], Gomoku: VCT), with this node budget;
    /// replaces the per-node tactics at the root. `None` (default): the root gets the per-node
    /// tactics like every node.
    #[serde(with = "zero_is_off")]
    pub root_tactical_budget: Option<u32>,
    /// The same deeper search ([`alphazero_game::Game::root_tactical_proof`]) at each child
    /// of the root, i.e. for the opponent after each of the root's candidate moves, with this
    /// node budget per child: a candidate that lets the opponent win by force (Gomoku: a VCT
    /// by threes and fours, not only a VCF) is proven lost the first time it is visited, so
    /// the search defends against threats two moves deep. `None` (default): the root's
    /// children get the per-node tactics like every node.
    #[serde(with = "zero_is_off")]
    pub reply_tactical_budget: Option<u32>,
    /// Narrow the moves of a node whose side to move faces a forced win of the opponent (if it
    /// passed) to the moves that can stop it ([`alphazero_game::Game::threat_replies`],
    /// Gomoku: a VCF, found within this node budget, and the moves that touch it or make a
    /// four): the search spends no visits on moves that lose to the threat, and the solver can
    /// prove such a node lost from those few moves, so a threat sequence of threes is proven
    /// through the tree. `None` (default): the game's [`alphazero_game::Game::search_moves`].
    /// Measured in the Gomoku play search (VCF budget 2,000): sound, six moves kept of ~70 where
    /// it narrows, but the brain with it lost to the brain without it at 1 s a move (about
    /// 40%, see docs/results.md), so no preset turns it on.
    #[serde(with = "zero_is_off")]
    pub threat_replies_budget: Option<u32>,
    /// When set, the Dirichlet α of the root noise is this total divided by the number of root
    /// candidates actually searched (AlphaZero's α ≈ 10 / typical number of legal moves), so
    /// that the noise keeps its shape when a game searches only part of its action space
    /// (Gomoku's candidate points). `None` (default): [`SearchConfig::dirichlet_alpha`] as is.
    #[serde(with = "zero_is_off")]
    pub dirichlet_alpha_total: Option<f32>,
    /// Forced playouts and policy target pruning (KataGo, Wu 2019, §3.1), with this `k` (KataGo:
    /// 2). Active only at the root of a search with root noise
    /// ([`crate::SearchBudget::root_noise`], i.e. self-play's full searches) and PUCT (not Gumbel):
    /// a root child that has been visited but has fewer than `n_forced = sqrt(k · P · N)` visits
    /// (`P` its noised prior, `N` the root children's visits) is selected regardless of its PUCT
    /// score, so that the noise's picks get a real look; the visit distribution reported as the
    /// policy ([`crate::SearchResult::policy`], the training target π) then subtracts from every
    /// child but the most visited up to `n_forced` visits as long as its PUCT score stays below the
    /// most visited child's, and drops a child left with one visit, so that π keeps the visits the
    /// search wanted, not the forced ones. `None` (default, 0 in a config file): off.
    #[serde(with = "zero_is_off")]
    pub forced_playouts: Option<f32>,
    /// Contempt: the value of a drawn end of the game (repetition, move limit, proven draw)
    /// for the root's side to move, in [-1, 1]; the other side gets its negation (0.0: a draw
    /// is worth 0 to both). A negative value makes both sides of self-play avoid draws their
    /// own search can see (each move's search scores draws against its own root side), as
    /// lc0's draw score does. Game results and training targets are not changed; the reported
    /// values (root value, child Q) include it. Values kept in a reused subtree were backed up
    /// under the earlier root's side.
    pub draw_score: f32,
    /// Softmax temperature of the priors at every expanded node (lc0's policy temperature;
    /// 1.0, the network's own policy): `P = softmax(logits / T)`. Above 1 the priors are
    /// flatter, so that moves the network rates low (e.g. an undefended piece it could take)
    /// still get visits in a long search. A Gumbel root samples and builds its improved policy
    /// from the network's own logits (`T · ln P`), so self-play targets do not flatten.
    pub policy_temperature: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            c_puct: CPuct::default(),
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            virtual_loss: 1.0,
            leaves_per_batch: 8,
            use_candidate_moves: true,
            solver: true,
            terminal_check: false,
            gumbel: None,
            tactical_budget: None,
            root_tactical_budget: None,
            reply_tactical_budget: None,
            threat_replies_budget: None,
            dirichlet_alpha_total: None,
            forced_playouts: None,
            draw_score: 0.0,
            policy_temperature: 1.0,
        }
    }
}

/// A [`SearchConfig`] or [`crate::SearchBudget`] field has a value the search cannot use.
/// Names the field and the value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid search config: {field} = {value}: {reason}")]
pub struct ConfigError {
    /// The offending field, e.g. `"dirichlet_alpha"`.
    pub field: &'static str,
    /// The rejected value, formatted.
    pub value: String,
    /// What is required.
    pub reason: String,
}

pub(crate) fn check(
    ok: bool,
    field: &'static str,
    value: impl ToString,
    reason: &'static str,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            field,
            value: value.to_string(),
            reason: reason.into(),
        })
    }
}

/// A knob's verdict as the config's error (`must be a number in (0, 100]`).
fn knob<T>(verdict: Result<T, KnobError>) -> Result<(), ConfigError> {
    verdict.map(|_| ()).map_err(|e| ConfigError {
        field: e.knob,
        value: e.given,
        reason: format!("must be {}", e.expected),
    })
}

impl SearchConfig {
    /// Checks every field.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first bad field: coefficients finite and in range
    /// (`c_puct` > 0, `c_base` > 0, `fpu_reduction` ≥ 0, `dirichlet_alpha` > 0,
    /// `dirichlet_epsilon` in [0, 1], `virtual_loss` ≥ 0, `draw_score` in [-1, 1]),
    /// `leaves_per_batch` ≥ 1, Gumbel `num_sampled_actions` ≥ 1, `c_visit` ≥ 0, `c_scale` > 0.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self.c_puct {
            CPuct::Constant(c) => knob(knobs::C_PUCT.check(c))?,
            CPuct::AlphaZero { c_base, c_init } => {
                check(
                    c_base.is_finite() && c_base > 0.0,
                    "c_puct.c_base",
                    c_base,
                    "must be finite and > 0",
                )?;
                check(
                    c_init.is_finite() && c_init > 0.0,
                    "c_puct.c_init",
                    c_init,
                    "must be finite and > 0",
                )?;
            }
        }
        knob(knobs::POLICY_TEMPERATURE.check(self.policy_temperature))?;
        knob(knobs::FPU_REDUCTION.check(self.fpu_reduction))?;
        let a = self.dirichlet_alpha;
        check(
            a.is_finite() && a > 0.0,
            "dirichlet_alpha",
            a,
            "must be finite and > 0",
        )?;
        if let Some(a) = self.dirichlet_alpha_total {
            check(
                a.is_finite() && a > 0.0,
                "dirichlet_alpha_total",
                a,
                "must be finite and >= 0 (0 = off)",
            )?;
        }
        if let Some(k) = self.forced_playouts {
            check(
                k.is_finite() && k > 0.0,
                "forced_playouts",
                k,
                "must be finite and >= 0 (0 = off)",
            )?;
            // Forcing visits is a PUCT root's rule; a Gumbel root picks its own visits.
            check(
                self.gumbel.is_none(),
                "forced_playouts",
                k,
                "acts at a PUCT root only and does nothing with gumbel on: set one of them",
            )?;
        }
        let e = self.dirichlet_epsilon;
        check(
            (0.0..=1.0).contains(&e),
            "dirichlet_epsilon",
            e,
            "must be in [0, 1]",
        )?;
        let v = self.virtual_loss;
        check(
            v.is_finite() && v >= 0.0,
            "virtual_loss",
            v,
            "must be finite and >= 0",
        )?;
        let d = self.draw_score;
        check(
            d.is_finite() && (-1.0..=1.0).contains(&d),
            "draw_score",
            d,
            "must be in [-1, 1]",
        )?;
        knob(knobs::LEAVES_PER_BATCH.check(self.leaves_per_batch))?;
        if let Some(g) = &self.gumbel {
            knob(knobs::GUMBEL_SAMPLED_ACTIONS.check(g.num_sampled_actions))?;
            check(
                g.c_visit.is_finite() && g.c_visit >= 0.0,
                "gumbel.c_visit",
                g.c_visit,
                "must be finite and >= 0",
            )?;
            check(
                g.c_scale.is_finite() && g.c_scale > 0.0,
                "gumbel.c_scale",
                g.c_scale,
                "must be finite and > 0",
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid() {
        assert_eq!(SearchConfig::default().validate(), Ok(()));
    }

    #[test]
    fn validation_names_the_bad_field() {
        let cases: Vec<(SearchConfig, &str)> = vec![
            (
                SearchConfig {
                    c_puct: CPuct::Constant(-1.0),
                    ..Default::default()
                },
                "c_puct",
            ),
            (
                SearchConfig {
                    c_puct: CPuct::AlphaZero {
                        c_base: 0.0,
                        c_init: 1.0,
                    },
                    ..Default::default()
                },
                "c_puct.c_base",
            ),
            (
                SearchConfig {
                    fpu_reduction: f32::NAN,
                    ..Default::default()
                },
                "fpu_reduction",
            ),
            (
                SearchConfig {
                    dirichlet_alpha: 0.0,
                    ..Default::default()
                },
                "dirichlet_alpha",
            ),
            (
                SearchConfig {
                    dirichlet_epsilon: 1.5,
                    ..Default::default()
                },
                "dirichlet_epsilon",
            ),
            (
                SearchConfig {
                    virtual_loss: -0.5,
                    ..Default::default()
                },
                "virtual_loss",
            ),
            (
                SearchConfig {
                    leaves_per_batch: 0,
                    ..Default::default()
                },
                "leaves_per_batch",
            ),
            (
                SearchConfig {
                    gumbel: Some(GumbelConfig {
                        num_sampled_actions: 0,
                        ..Default::default()
                    }),
                    ..Default::default()
                },
                "gumbel.num_sampled_actions",
            ),
            (
                SearchConfig {
                    gumbel: Some(GumbelConfig {
                        c_scale: 0.0,
                        ..Default::default()
                    }),
                    ..Default::default()
                },
                "gumbel.c_scale",
            ),
            (
                SearchConfig {
                    forced_playouts: Some(-2.0),
                    ..Default::default()
                },
                "forced_playouts",
            ),
            (
                SearchConfig {
                    forced_playouts: Some(2.0),
                    gumbel: Some(GumbelConfig::default()),
                    ..Default::default()
                },
                "forced_playouts",
            ),
        ];
        for (cfg, field) in cases {
            let err = cfg.validate().expect_err(field);
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field));
        }
    }

    #[test]
    fn config_file_form_round_trips_and_reads_each_written_form() {
        let custom = SearchConfig {
            c_puct: CPuct::Constant(2.5),
            gumbel: Some(GumbelConfig {
                num_sampled_actions: 8,
                ..GumbelConfig::default()
            }),
            tactical_budget: Some(200),
            dirichlet_alpha_total: Some(10.0),
            draw_score: -0.2,
            forced_playouts: Some(2.0),
            ..SearchConfig::default()
        };
        for cfg in [SearchConfig::default(), custom] {
            let text = toml::to_string(&cfg).unwrap();
            assert_eq!(
                toml::from_str::<SearchConfig>(&text).unwrap(),
                cfg,
                "{text}"
            );
        }
        let read = |text: &str| toml::from_str::<SearchConfig>(text);
        let c = read("c_puct = 2\ngumbel = true\ntactical_budget = 0\n").unwrap();
        assert_eq!(c.c_puct, CPuct::Constant(2.0));
        assert_eq!(c.gumbel, Some(GumbelConfig::default()));
        assert_eq!(c.tactical_budget, None, "0 = off");
        let c = read("c_puct = { c_base = 100, c_init = 2.0 }\ngumbel = false\n").unwrap();
        assert_eq!(
            c.c_puct,
            CPuct::AlphaZero {
                c_base: 100.0,
                c_init: 2.0
            }
        );
        assert_eq!(c.gumbel, None);
        let c = read("gumbel = { c_visit = 25.0 }\ndirichlet_alpha_total = 10\n").unwrap();
        assert_eq!(c.gumbel.map(|g| g.c_visit), Some(25.0));
        assert_eq!(c.dirichlet_alpha_total, Some(10.0));
        assert_eq!(
            read("forced_playouts = 2").unwrap().forced_playouts,
            Some(2.0)
        );
        assert_eq!(read("forced_playouts = 0").unwrap().forced_playouts, None);
        // The budget's keys (the caller's, per search: `SearchBudget`) are no settings of the
        // search, and are refused by name as any unknown key.
        for bad in [
            "simulations = 5",
            "seed = 1",
            "root_noise = true",
            "temperature = 1.0",
            "c_puct = { c_base = 1.0, x = 1 }",
        ] {
            let err = read(bad).unwrap_err().to_string();
            assert!(err.contains("unknown field"), "{bad}: {err}");
        }
        assert!(read("c_puct = \"big\"").is_err());
    }

    #[test]
    fn alphazero_c_puct_grows_with_visits() {
        let c = CPuct::default();
        assert!((c.value(0.0) - 1.25).abs() < 1e-4);
        assert!(c.value(100_000.0) > c.value(1000.0));
    }
}
