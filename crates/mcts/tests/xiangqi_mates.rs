//! The search with Xiangqi's mate tactics ([`SearchConfig::tactical_budget`]) on the mate
//! positions of `crates/xiangqi/tests/data/mates.tsv`, driven by an evaluator that gives every
//! mating move a tiny prior (what an untrained network may do): the Xiangqi issue "a mating
//! move the network rates low is never tried".

use alphazero_game::{Game, Outcome};
use alphazero_mcts::{EvalError, EvalRequest, Evaluator, Search, SearchBudget, SearchConfig};
use alphazero_xiangqi::{reference, Move, Xiangqi, XiangqiConfig};

const DATA: &str = include_str!("../../xiangqi/tests/data/mates.tsv");

/// Logit 0 for every move, −20 for the moves that mate in one; value 0.
struct MateBlind;

impl Evaluator<Xiangqi> for MateBlind {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, Xiangqi>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let a = alphazero_xiangqi::NUM_ACTIONS;
        for (i, r) in batch.iter().enumerate() {
            let row = &mut policy_logits[i * a..(i + 1) * a];
            row.fill(0.0);
            for m in r.position.mates_in_one() {
                row[r.position.move_to_action(m)] = -20.0;
            }
            values[i] = 0.0;
        }
        Ok(())
    }
}

/// The data rows with a mate: (position, mate length in plies by checks, line number).
fn mates() -> Vec<(Xiangqi, u32, usize)> {
    DATA.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.starts_with("fen\t"))
        .filter_map(|(i, l)| {
            let cols: Vec<&str> = l.split('\t').collect();
            let plies = cols[2].parse().ok()?;
            let pos = Xiangqi::from_fen(cols[0], XiangqiConfig::default()).unwrap();
            Some((pos, plies, i + 1))
        })
        .collect()
}

/// The move the search plays at 200 simulations, and whether it proved the root won.
fn play(pos: &Xiangqi, tactical_budget: Option<u32>) -> (Option<Move>, bool) {
    let config = SearchConfig {
        tactical_budget,
        ..SearchConfig::default()
    };
    let budget = SearchBudget::simulations(200);
    let mut search = Search::new(pos.clone(), Vec::new(), config, budget).unwrap();
    let r = search.run(&MateBlind).unwrap();
    (r.best_move, r.proven == Some(Outcome::Win))
}

#[test]
fn mate_in_one_with_a_low_prior_is_played_with_tactics() {
    let rows: Vec<_> = mates().into_iter().filter(|r| r.1 == 1).collect();
    assert!(rows.len() >= 5);
    let mut missed_without = 0;
    for (pos, _, line) in &rows {
        let mating = pos.mates_in_one();
        let (mv, proven) = play(pos, Some(0));
        assert!(
            proven && mv.is_some_and(|m| mating.contains(&m)),
            "line {line}: played {mv:?}, proven {proven}"
        );
        let (mv, _) = play(pos, None);
        missed_without += usize::from(!mv.is_some_and(|m| mating.contains(&m)));
    }
    // Without the tactics the low prior hides the mate (the failure the tactics fix).
    assert!(
        missed_without > rows.len() / 2,
        "missed only {missed_without}"
    );
}

#[test]
fn mates_by_checks_are_played_with_a_budget() {
    let rows = mates();
    assert!(rows.iter().any(|r| r.1 == 5));
    for (pos, plies, line) in rows {
        let (mv, proven) = play(&pos, Some(200));
        let mv = mv.expect("a move");
        assert!(proven, "line {line}: root not proven won");
        assert!(
            reference::mating_moves(&pos, plies, true).contains(&mv),
            "line {line}: {mv} does not mate by checks in {plies} plies"
        );
    }
}
