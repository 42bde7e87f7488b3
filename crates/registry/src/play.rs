//! Each game's play search: how every program that plays or analyses a game searches it
//! (`play`, `analyze`, `serve`, the arena's `net:` players, the Gomocup brain and the UCCI/UCI
//! engine), so that a position gets the same tactics whichever program is asked. Each game
//! states its preset in its own module ([`crate::Registered::play_search`]); the tactical
//! budgets they share are here.
//!
//! A preset says *how* to search (PUCT, first-play urgency, solver, decisive-move check, the
//! game's tactics), a [`alphazero_mcts::SearchConfig`]; *how long* (simulations, nodes, time),
//! root noise and seed are the program's ([`alphazero_mcts::SearchBudget`]), and so is the
//! temperature of its move choice.
//!
//! Self-play is not a play search: the training configuration's `[selfplay.search]` sets its
//! own, cheaper tactics (see [`crate::GameSpec::training_preset`]).

/// Node budget of Gomoku's VCF at every expanded node of a play search
/// ([`alphazero_mcts::SearchConfig::tactical_budget`]).
pub const PLAY_TACTICAL_BUDGET: u32 = 2_000;

/// Node budget of Xiangqi's mate search by checks at every expanded node of a play search
/// ([`alphazero_mcts::SearchConfig::tactical_budget`]; the mate in one is looked for first
/// and costs none of it). Small, because its cost is not the average's (~18 µs a call on game
/// positions) where it matters: in a sharp middle game, where most nodes have checks, 2,000
/// nodes a call made a 12,000-simulation search take ~10× as long as in a quiet position
/// (15 s against 1.6 s), so the engine saw a tenth of its simulations exactly where the game
/// was decided. At 200 the same search takes ~2.5× and, at 300 ms a move, won 62% against
/// 2,000 (docs/results.md#xiangqi); the root (10,000) and the replies to each root
/// candidate (3,000) keep the deeper mate search.
pub const PLAY_XIANGQI_TACTICAL_BUDGET: u32 = 200;

/// Node budget of Xiangqi's deeper tactical search at the root of a play search
/// ([`alphazero_mcts::SearchConfig::root_tactical_budget`]): its mate search by checks, deeper.
pub const PLAY_ROOT_TACTICAL_BUDGET: u32 = 10_000;

/// Gomoku's root VCT budget ([`alphazero_mcts::SearchConfig::root_tactical_budget`]), stones
/// placed: about 65 ms a position where there is no win to find (`alphazero bench tactics`,
/// line `vct-no-win-per-position`), some 5% of a Gomocup second.
pub const PLAY_GOMOKU_ROOT_TACTICAL_BUDGET: u32 = 40_000;

/// Node budget of the same deeper search for the opponent after each root candidate
/// ([`alphazero_mcts::SearchConfig::reply_tactical_budget`]), per candidate visited: a
/// candidate that lets the opponent win by force (Gomoku: a VCT; Xiangqi: a mate by checks) is
/// proven lost on its first visit, so the search defends against threats two moves deep.
pub const PLAY_REPLY_TACTICAL_BUDGET: u32 = 3_000;

/// Xiangqi's policy temperature in a play search
/// ([`alphazero_mcts::SearchConfig::policy_temperature`]): priors `softmax(logits / 2)`. The
/// shipped network's policy is so sharp that a winning capture with a low prior got no visit
/// in 4,000 simulations; at 2 the engine plays the material-winning move in 26 of 40
/// ElephantEye-classified positions (23 at 1) and won 21-3-0 against itself at 1 (800
/// simulations a move, SPRT [0, 50]).
pub const PLAY_POLICY_TEMPERATURE: f32 = 2.0;
