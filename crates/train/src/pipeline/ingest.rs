//! **Ingest**: a record batch's positions join the replay buffer.

use alphazero_nn::Encode;

use super::Pipeline;
use crate::error::PipelineError;
use crate::record::GameRecord;
use crate::replay::ReplayBuffer;

impl<G: Encode> Pipeline<'_, G> {
    /// **Ingest**: the positions of `games` (ids from `first_game_id` on) join `buffer`.
    /// Returns the number of positions added.
    ///
    /// # Errors
    /// [`PipelineError::Replay`] for a game whose moves do not replay.
    pub fn ingest(
        &self,
        buffer: &mut ReplayBuffer<G>,
        first_game_id: u64,
        games: &[GameRecord],
    ) -> Result<u64, PipelineError> {
        Ok(buffer.add_games(&self.start_position(), first_game_id, games)?)
    }
}
