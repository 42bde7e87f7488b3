//! Search configuration with the papers' defaults, and its validation.

/// The exploration coefficient of PUCT.
///
/// The selection score of a child `a` of a node with `N` visits is
/// `Q(a) + c(N) · P(a) · sqrt(N) / (1 + N(a))`.
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

/// Settings of the Gumbel root (Danihelka et al. 2022, "Policy improvement by planning with
/// Gumbel"). Defaults are the paper's.
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// Everything that controls one search. `Default` gives the AlphaZero paper's values.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Simulations (completed leaf back-ups, evaluated or terminal) per [`crate::Search::run`]
    /// (800). Visits already in a reused subtree do not count against it.
    pub simulations: u32,
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
    /// Whether to add Dirichlet noise to the root priors (self-play: on; play/arena: off).
    /// Default `false`. Ignored when [`SearchConfig::gumbel`] is set (Gumbel sampling is the
    /// exploration there).
    pub root_noise: bool,
    /// The move-choice temperature τ a caller should pass to [`crate::select_move`] (1.0).
    /// The search itself does not read it; schedules such as "τ = 1 for the first 30 moves"
    /// are up to the caller.
    pub temperature: f32,
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
    pub gumbel: Option<GumbelConfig>,
    /// The game's own tactical search at every expanded node ([`alphazero_game::Game::tactical_proof`],
    /// Gomoku: fives, unstoppable threats and VCF), with this node budget per call; its proven
    /// wins and losses enter the MCTS-solver. `None` (default): not called. `Some(0)`: only
    /// the cheap checks (Gomoku: fives and unstoppable threats, no VCF).
    pub tactical_budget: Option<u32>,
    /// The game's deeper tactical search at the root only
    /// ([`alphazero_game::Game::root_tactical_proof`], Gomoku: VCT), with this node budget;
    /// replaces the per-node tactics at the root. `None` (default): the root gets the per-node
    /// tactics like every node.
    pub root_tactical_budget: Option<u32>,
    /// The same deeper search ([`alphazero_game::Game::root_tactical_proof`]) at each child
    /// of the root, i.e. for the opponent after each of the root's candidate moves, with this
    /// node budget per child: a candidate that lets the opponent win by force (Gomoku: a VCT
    /// by threes and fours, not only a VCF) is proven lost the first time it is visited, so
    /// the search defends against threats two moves deep. `None` (default): the root's
    /// children get the per-node tactics like every node.
    pub reply_tactical_budget: Option<u32>,
    /// When set, the Dirichlet α of the root noise is this total divided by the number of root
    /// candidates actually searched (AlphaZero's α ≈ 10 / typical number of legal moves), so
    /// that the noise keeps its shape when a game searches only part of its action space
    /// (Gomoku's candidate points). `None` (default): [`SearchConfig::dirichlet_alpha`] as is.
    pub dirichlet_alpha_total: Option<f32>,
    /// Contempt: the value of a drawn end of the game (repetition, move limit, proven draw)
    /// for the root's side to move, in [-1, 1]; the other side gets its negation (0.0: a draw
    /// is worth 0 to both). A negative value makes both sides of self-play avoid draws their
    /// own search can see (each move's search scores draws against its own root side), as
    /// lc0's draw score does. Game results and training targets are not changed; the reported
    /// values (root value, child Q) include it. Values kept in a reused subtree were backed up
    /// under the earlier root's side.
    pub draw_score: f32,
    /// Seed of the search's RNG (Dirichlet noise, Gumbel samples).
    pub seed: u64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 800,
            c_puct: CPuct::default(),
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            root_noise: false,
            temperature: 1.0,
            virtual_loss: 1.0,
            leaves_per_batch: 8,
            use_candidate_moves: true,
            solver: true,
            terminal_check: false,
            gumbel: None,
            tactical_budget: None,
            root_tactical_budget: None,
            reply_tactical_budget: None,
            dirichlet_alpha_total: None,
            draw_score: 0.0,
            seed: 0,
        }
    }
}

/// A [`SearchConfig`] field has a value the search cannot use. Names the field and the value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid search config: {field} = {value}: {reason}")]
pub struct ConfigError {
    /// The offending field, e.g. `"dirichlet_alpha"`.
    pub field: &'static str,
    /// The rejected value, formatted.
    pub value: String,
    /// What is required.
    pub reason: &'static str,
}

fn check(
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
            reason,
        })
    }
}

impl SearchConfig {
    /// Checks every field.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first bad field: `simulations` must be ≥ 1, coefficients
    /// finite and in range (`c_puct` > 0, `c_base` > 0, `fpu_reduction` ≥ 0,
    /// `dirichlet_alpha` > 0, `dirichlet_epsilon` in [0, 1], `temperature` ≥ 0,
    /// `virtual_loss` ≥ 0, `draw_score` in [-1, 1]), `leaves_per_batch` ≥ 1, Gumbel `num_sampled_actions` ≥ 1,
    /// `c_visit` ≥ 0, `c_scale` > 0.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check(
            self.simulations >= 1,
            "simulations",
            self.simulations,
            "must be at least 1",
        )?;
        match self.c_puct {
            CPuct::Constant(c) => check(
                c.is_finite() && c > 0.0,
                "c_puct",
                c,
                "must be finite and > 0",
            )?,
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
        let f = self.fpu_reduction;
        check(
            f.is_finite() && f >= 0.0,
            "fpu_reduction",
            f,
            "must be finite and >= 0",
        )?;
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
                "must be finite and > 0",
            )?;
        }
        let e = self.dirichlet_epsilon;
        check(
            (0.0..=1.0).contains(&e),
            "dirichlet_epsilon",
            e,
            "must be in [0, 1]",
        )?;
        let t = self.temperature;
        check(
            t.is_finite() && t >= 0.0,
            "temperature",
            t,
            "must be finite and >= 0",
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
        check(
            self.leaves_per_batch >= 1,
            "leaves_per_batch",
            self.leaves_per_batch,
            "must be at least 1",
        )?;
        if let Some(g) = &self.gumbel {
            check(
                g.num_sampled_actions >= 1,
                "gumbel.num_sampled_actions",
                g.num_sampled_actions,
                "must be at least 1",
            )?;
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
                    simulations: 0,
                    ..Default::default()
                },
                "simulations",
            ),
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
                    temperature: -1.0,
                    ..Default::default()
                },
                "temperature",
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
        ];
        for (cfg, field) in cases {
            let err = cfg.validate().expect_err(field);
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field));
        }
    }

    #[test]
    fn alphazero_c_puct_grows_with_visits() {
        let c = CPuct::default();
        assert!((c.value(0.0) - 1.25).abs() < 1e-4);
        assert!(c.value(100_000.0) > c.value(1000.0));
    }
}
