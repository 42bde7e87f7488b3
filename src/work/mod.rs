//! The work behind the commands that are more than a call into one crate, next to their flags
//! (`src/cmd/`): [`play`] (a game in the terminal), [`records`] (inspecting and converting game
//! records), [`eval`] (learning-quality reports), [`arena`] (matches, ratings and ladders),
//! [`bench`] (throughput figures) and [`runs`] (what `train`, `learner` and `actor` show and
//! how they stop). The engine set-up they build on (evaluators, the play search, how
//! positions are shown) is the `alphazero_engine` crate.
pub mod arena;
pub mod bench;
pub mod eval;
pub mod play;
pub mod records;
pub mod runs;
