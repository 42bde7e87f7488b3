//! Encoding positions into the network's input planes, and what the planes and action indices
//! mean (the exported network's description). Each game's encoder is in its module.

use alphazero_game::Game;

use crate::Registered;

/// A game whose positions can be encoded as network input planes `[C, H, W]`; a game of the
/// registry ([`Registered`]), so that a checkpoint names the game and rules it was trained for.
///
/// The encoding is always **from the side to move**: "own" planes are the pieces of the side
/// to move, and games whose action indices are seen from the side to move (Xiangqi) turn the
/// board so that the side to move is at the bottom.
///
/// The encodings of this build's games:
///
/// * **Gomoku** (`C = 4`, under renju 5, `H = W = N`): plane 0 = stones of the side to move,
///   1 = opponent's stones, 2 = the last move (one 1.0, all zero at the start), 3 = colour to
///   move (all ones if Black (the first player) is to move, all zeros for White); renju only:
///   4 = Black's forbidden points (1.0 at each double-three, double-four and overline point,
///   whichever side is to move). Square `(x, y)` is at row `y`, column `x` of the game's
///   coordinates.
/// * **Xiangqi** (`C = 18`, `H = 10`, `W = 9`): planes 0–6 = pieces of the side to move by
///   kind (king/general, advisor, elephant, horse, chariot, cannon, soldier), planes 7–13 = the
///   opponent's pieces in the same order, plane 14 = repetitions of the position so far
///   (`min(repetitions, 2) / 2`), plane 15 = the no-capture counter (`halfmove_clock / L`,
///   at most 1, where `L` is the configured no-capture draw limit, 120 plies by default),
///   planes 16 and 17 = how many pieces of the side to move and of the opponent attack each
///   point by the movement rules (`min(attackers, 2) / 2`; `Xiangqi::attack_counts`). The
///   first 16 are the common planes: a network from before planes 16–17 reads them with zero
///   weights. For Red the board is as the game stores it (rank 0 = Red's back rank in row
///   0); for Black it is turned 180° (file `f`, rank `r` → `8 − f`, `9 − r`), so the side to
///   move always plays "up" from row 0, matching the xiangqi action indices, which are seen
///   from the side to move.
/// * **Connect Four** (`C = 2`, `H = 6`, `W = 7`): plane 0 = discs of the side to move,
///   plane 1 = opponent's discs; row `r` is board row `r` (0 = bottom).
///
///
/// Every encoder implements [`Encode::transform_planes`], the image of the planes under the
/// game's symmetries, consistent with `Game::transform` and `Game::transform_action`.
pub trait Encode: Registered {
    /// Number of planes `C` for a game configuration. `H × W` is [`Game::board_shape`].
    fn num_planes(config: &Self::Config) -> usize;

    /// The leading planes that every configuration of the game with this board shares, in
    /// the same order and meaning (Gomoku: the 4 of every rule; renju adds black's forbidden
    /// points after them). A network trained on these alone plays positions of `config` with
    /// zero weights on the others. Default: all of them.
    fn common_planes(config: &Self::Config) -> usize {
        Self::num_planes(config)
    }

    /// Writes the planes of this position into `out`, row-major `[C, H, W]`
    /// (`out[(c * H + y) * W + x]`), overwriting every element.
    ///
    /// `repetitions` is how often this position occurred before in the game
    /// (`alphazero_game::count_repetitions(history, self.zobrist())`); games without
    /// repetition rules ignore it.
    ///
    /// # Panics
    /// If `out.len() != num_planes × H × W`.
    fn encode(&self, repetitions: u32, out: &mut [f32]);

    /// Applies board symmetry `sym` (as in [`Game::transform`] / [`Game::transform_action`]) to
    /// encoded planes: `transform_planes(config, sym, &encode(p), out)` writes `encode(p.transform(sym))`.
    /// Used for data augmentation.
    ///
    /// # Panics
    /// If `src` or `dst` does not have the length `num_planes × H × W` of `config`.
    fn transform_planes(config: &Self::Config, sym: usize, src: &[f32], dst: &mut [f32]);

    /// `num_planes × H × W` for a configuration.
    fn input_len(config: &Self::Config) -> usize {
        let (h, w) = Self::new(config).board_shape();
        Self::num_planes(config) * h * w
    }

    /// The meaning of each input plane, in order (`num_planes` entries), for the description
    /// of an exported network.
    fn plane_meanings(config: &Self::Config) -> Vec<String>;

    /// How rows and columns of the planes map to the board.
    fn board_layout() -> &'static str;

    /// How action indices map to moves (an exported network's description lists each
    /// index's move).
    fn policy_layout() -> &'static str;

    /// Writes this position's **ownership map** into `out`, `[H, W]` row-major in the frame of
    /// the input planes (`out[y * W + x]` is the point of row `y`, column `x` of every plane):
    /// a training-only target in the spirit of KataGo's ownership, each value in {−1, 0, +1}
    /// and **from the side to move** of this position (+1 = the side to move's, −1 = the
    /// opponent's), saying what becomes of each point by the end of the game.
    ///
    /// `continuation` is the moves played from this position to the end of its game record,
    /// this position's own move first (empty for the record's last position), and `end` the
    /// position the record ends in (after the last of them; a resigned game or one cut off at
    /// the ply limit ends where it stopped). Each game uses what it needs:
    ///
    /// * **Gomoku** and **Connect Four**: the owner of each point on `end`'s board (+1 a stone
    ///   or disc of this position's side to move, −1 the opponent's, 0 empty).
    /// * **Xiangqi**: for each point, whether the piece standing on it now is still on the
    ///   board at the end of the record (+1 a piece of the side to move that is never
    ///   captured, −1 such a piece of the opponent, 0 an empty point or a piece captured by
    ///   one of the `continuation` moves, wherever it has moved to by then). Points are
    ///   turned 180° for Black as in the planes.
    ///
    /// # Panics
    /// If `out.len() != H × W`.
    fn ownership(&self, continuation: &[Self::Move], end: &Self, out: &mut [f32]);

    /// Applies board symmetry `sym` to one `[H, W]` map in the planes' frame (an
    /// [`Encode::ownership`]) as [`Encode::transform_planes`] moves each plane's points:
    /// `transform_ownership(config, sym, &ownership(p, ..), out)` writes the ownership map of
    /// `p.transform(sym)` and its game's moves transformed alike.
    ///
    /// # Panics
    /// If `src` or `dst` is not `H × W` long.
    fn transform_ownership(config: &Self::Config, sym: usize, src: &[f32], dst: &mut [f32]);

    /// What [`Encode::ownership`] gives for this game, in one sentence (an exported
    /// network's description).
    fn ownership_meaning() -> &'static str;

    /// Where a convolutional policy head finds each action's logit ([`PolicyPlanes`]): the
    /// head computes `K` planes over the board (`[K, H, W]`, the input planes' frame) and
    /// action `a` reads one point of one plane, so that a move's logit is computed at the
    /// point it starts from (Xiangqi: its from-square, by move type) or lands on (Gomoku).
    /// `None`, the default, for a game whose actions have no such point (Connect Four).
    fn policy_planes(config: &Self::Config) -> Option<PolicyPlanes> {
        let _ = config;
        None
    }
}

/// The layout of a convolutional policy head's output ([`Encode::policy_planes`]): `planes`
/// maps `[planes, H, W]`, and `index[a]` is the flat position `(k · H + y) · W + x` of action
/// `a`'s logit in them. Every action has its own position (no two share one); positions no
/// action reads are left out of the policy.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PolicyPlanes {
    /// The number `K` of planes.
    pub planes: usize,
    /// Per action, its flat position in `[K, H, W]`.
    pub index: Vec<u32>,
}

/// Copies every plane of `src` to `dst` moving the square `(x, y)` to `map(x, y)`.
/// `src` and `dst` are `[C, H, W]` with `H × W = h × w`; `map` returns coordinates in the same
/// `h × w` frame.
pub(crate) fn permute_squares(
    h: usize,
    w: usize,
    src: &[f32],
    dst: &mut [f32],
    map: impl Fn(usize, usize) -> (usize, usize),
) {
    assert_eq!(
        src.len(),
        dst.len(),
        "source and destination planes differ in length"
    );
    assert_eq!(
        src.len() % (h * w),
        0,
        "planes are not a multiple of {h}×{w}"
    );
    let planes = src.len() / (h * w);
    for y in 0..h {
        for x in 0..w {
            let (tx, ty) = map(x, y);
            let from = y * w + x;
            let to = ty * w + tx;
            for c in 0..planes {
                dst[c * h * w + to] = src[c * h * w + from];
            }
        }
    }
}

/// Applies symmetry `sym` to a vector over the action space of `pos`:
/// `dst[pos.transform_action(sym, a)] = src[a]` for every action `a`. Together with
/// [`Encode::transform_planes`] this turns a training sample of `pos` into one of
/// `pos.transform(sym)` (policy targets, legal masks).
///
/// # Panics
/// If `src` or `dst` is not `pos.num_actions()` long.
pub fn transform_policy<G: Game, T: Copy>(pos: &G, sym: usize, src: &[T], dst: &mut [T]) {
    let a = pos.num_actions();
    assert_eq!(src.len(), a, "source policy length");
    assert_eq!(dst.len(), a, "destination policy length");
    for (i, &v) in src.iter().enumerate() {
        dst[pos.transform_action(sym, i)] = v;
    }
}
