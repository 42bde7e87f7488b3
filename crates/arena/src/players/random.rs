//! The uniform random mover.

use alphazero_game::{Game, History};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Limits, MoveChoice, Player, PlayerError};

/// Plays a uniformly random legal move (over [`Game::legal_moves`], not the search
/// candidates). Seeded: the same seed and the same positions give the same moves.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: StdRng,
}

impl RandomPlayer {
    /// A random mover seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose_move(
        &mut self,
        game: &History<G>,
        _limits: &Limits,
    ) -> Result<MoveChoice<G>, PlayerError> {
        let moves = game.current().legal_moves_vec();
        if moves.is_empty() {
            return Err(PlayerError::Failed {
                player: "random".into(),
                message: "no legal move in this position".into(),
            });
        }
        let mv = moves[self.rng.random_range(0..moves.len())];
        Ok(MoveChoice {
            mv,
            value: None,
            pv: vec![mv],
            info: String::new(),
        })
    }

    fn set_seed(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed);
    }
}
