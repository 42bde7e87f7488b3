//! Tactics on the real games: win-in-1 in all three, blocking a Gomoku four (uniform and
//! rollout evaluators), batched vs serial agreement.

use alphazero_connect4::{C4Move, Connect4};
use alphazero_game::{Game, Outcome, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_mcts::{
    run_many, Evaluator, RolloutEvaluator, Search, SearchBudget, SearchConfig, UniformEvaluator,
};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};

/// Search without a network: the decisive-move check is what makes 800 uniform simulations
/// see a one-ply threat on a 15×15 board.
fn cfg(k: u32) -> SearchConfig {
    SearchConfig {
        leaves_per_batch: k,
        terminal_check: true,
        ..Default::default()
    }
}

fn sims(n: u32) -> SearchBudget {
    SearchBudget::simulations(n)
}

fn best<G: Game, E: Evaluator<G>>(
    pos: &G,
    config: SearchConfig,
    budget: SearchBudget,
    e: &E,
) -> G::Move {
    let mut s = Search::new(pos.clone(), Vec::new(), config, budget).unwrap();
    s.run(e).unwrap().best_move.unwrap()
}

fn m(x: u8, y: u8) -> GomokuMove {
    GomokuMove::new(x, y)
}

/// 15×15 freestyle. White has a four on row 7 from x=3..=6, closed at x=2 by black; black has
/// scattered stones and no four. Black to move: only (7,7) stops five.
fn gomoku_block() -> Gomoku {
    let config = GomokuConfig::new(15, Rule::Freestyle).unwrap();
    let black = [m(2, 7), m(10, 10), m(11, 3), m(4, 11), m(12, 12)];
    let white = [m(3, 7), m(4, 7), m(5, 7), m(6, 7), m(9, 2)];
    Gomoku::from_stones(&config, &black, &white, Side::First).unwrap()
}

/// Side `to_move` has an open-ended four on column 7 (y = 4..=7) and can win at once.
fn gomoku_win(to_move: Side) -> (Gomoku, [GomokuMove; 2]) {
    let config = GomokuConfig::new(15, Rule::Freestyle).unwrap();
    let four = [m(7, 4), m(7, 5), m(7, 6), m(7, 7)];
    let other = [m(1, 1), m(13, 1), m(1, 13), m(13, 13), m(3, 10)];
    let pos = match to_move {
        Side::First => Gomoku::from_stones(&config, &four, &other, Side::First),
        Side::Second => Gomoku::from_stones(&config, &other[..4], &four, Side::Second),
    }
    .unwrap();
    (pos, [m(7, 3), m(7, 8)])
}

#[test]
fn gomoku_uniform_search_blocks_the_four() {
    let pos = gomoku_block();
    assert_eq!(best(&pos, cfg(8), sims(800), &UniformEvaluator), m(7, 7));
    assert_eq!(
        best(
            &pos,
            SearchConfig {
                solver: false,
                ..cfg(8)
            },
            sims(800),
            &UniformEvaluator
        ),
        m(7, 7)
    );
}

#[test]
fn gomoku_rollout_search_blocks_the_four() {
    let pos = gomoku_block();
    let rollout = RolloutEvaluator::new(1, 11);
    assert_eq!(best(&pos, cfg(8), sims(1000), &rollout), m(7, 7));
}

#[test]
fn gomoku_win_in_one_for_both_colours() {
    for side in [Side::First, Side::Second] {
        let (pos, wins) = gomoku_win(side);
        let mv = best(&pos, cfg(8), sims(800), &UniformEvaluator);
        assert!(wins.contains(&mv), "{side:?} played {mv}");
    }
}

#[test]
fn connect4_win_in_one_and_block_for_both_colours() {
    // First player: three in column 1, to move -> wins in column 1.
    let p = Connect4::from_moves("121212").unwrap();
    assert_eq!(best(&p, cfg(8), sims(800), &UniformEvaluator), C4Move(0));
    // Second player to move with three in column 2 -> wins there.
    let p = Connect4::from_moves("1212123").unwrap();
    assert_eq!(best(&p, cfg(8), sims(800), &UniformEvaluator), C4Move(1));
    // Second player must block column 1.
    let p = Connect4::from_moves("12121").unwrap();
    assert_eq!(best(&p, cfg(8), sims(800), &UniformEvaluator), C4Move(0));
    // Second player to move with three in column 1 wins there.
    let p = Connect4::from_moves("2121213").unwrap();
    assert_eq!(best(&p, cfg(8), sims(800), &UniformEvaluator), C4Move(0));
    // First player (bottom row c, e, g; no win) must block column 1.
    let p = Connect4::from_moves("317151").unwrap();
    assert_eq!(best(&p, cfg(8), sims(800), &UniformEvaluator), C4Move(0));
}

#[test]
fn xiangqi_mate_in_one_is_found() {
    // Red chariot a8 holds rank 8; the chariot b0 -> b9 mates the lone black general e9.
    let p = Xiangqi::from_fen("4k4/R8/9/9/9/9/9/9/9/1R1K5 w", XiangqiConfig::default()).unwrap();
    let mut s = Search::new(p.clone(), Vec::new(), cfg(8), sims(800)).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    let mv = r.best_move.unwrap();
    let mut after = p.clone();
    after.play(mv).unwrap();
    assert_eq!(after.outcome(), Some(Outcome::Loss), "{mv} does not mate");
    assert_eq!(r.proven, Some(Outcome::Win));
}

#[test]
fn batched_serial_and_multi_tree_agree_on_tactics() {
    let pos = gomoku_block();
    let serial = best(&pos, cfg(1), sims(400), &UniformEvaluator);
    let batched = best(&pos, cfg(8), sims(400), &UniformEvaluator);
    let mut many: Vec<_> = (0..4)
        .map(|i| {
            Search::new(
                pos.clone(),
                Vec::new(),
                cfg(8),
                SearchBudget {
                    seed: i,
                    ..sims(400)
                },
            )
            .unwrap()
        })
        .collect();
    let rs = run_many(&mut many, &UniformEvaluator).unwrap();
    assert_eq!(serial, m(7, 7));
    assert_eq!(batched, serial);
    assert!(rs.iter().all(|r| r.best_move == Some(serial)));

    let c4 = Connect4::from_moves("12121").unwrap();
    let s1 = best(&c4, cfg(1), sims(400), &UniformEvaluator);
    assert_eq!(best(&c4, cfg(8), sims(400), &UniformEvaluator), s1);
    assert_eq!(s1, C4Move(0));
}

#[test]
fn tree_reuse_on_gomoku_keeps_visits() {
    let pos = gomoku_block();
    let mut s = Search::new(pos, Vec::new(), cfg(8), sims(400)).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    let mv = r.best_move.unwrap();
    let visits = r.children.iter().find(|c| c.mv == mv).unwrap().visits;
    s.advance(mv).unwrap();
    assert_eq!(s.root_visits(), visits);
    assert_eq!(s.root_position().side_to_move(), Side::Second);
}
