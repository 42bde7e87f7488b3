//! One module per subcommand.
pub mod analyze;
pub mod arena;
pub mod bench;
pub mod eval;
pub mod export;
pub mod perft;
pub mod play;
pub mod protocols;
pub mod records;
pub mod roles;
pub mod serve;
pub mod train;

/// Output paths checked before the work, and counted nouns, for every command's messages.
pub use alphazero_engine::{count, files::check_output_path};
