//! One module per subcommand.
pub mod analyze;
pub mod arena;
pub mod bench;
pub mod eval;
pub mod perft;
pub mod play;
pub mod protocols;
pub mod records;
pub mod serve;
pub mod train;
