//! Golden search trees: fixed seeds, the deterministic hash evaluator, tree statistics
//! compared with committed JSON under `tests/golden/`. Regenerate with `UPDATE_GOLDEN=1`.

mod common;

use alphazero_connect4::Connect4;
use alphazero_game::Game;
use alphazero_mcts::{GumbelConfig, Search, SearchBudget, SearchConfig, SearchResult};
use common::{HashEvaluator, Ttt};
use serde_json::{json, Value};

fn dump<G: Game>(r: &SearchResult<G>) -> Value {
    let round = |x: f32| (x as f64 * 1e6).round() / 1e6;
    json!({
        "best_move": r.best_move.map(|m| m.to_string()),
        "root_value": round(r.root_value),
        "root_visits": r.root_visits,
        "simulations": r.simulations,
        "proven": r.proven.map(|o| format!("{o:?}")),
        "pv": r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "children": r.children.iter().map(|c| json!({
            "mv": c.mv.to_string(),
            "action": c.action,
            "visits": c.visits,
            "q": round(c.q),
            "prior": round(c.prior),
            "proven": c.proven.map(|o| format!("{o:?}")),
        })).collect::<Vec<_>>(),
        "policy": r.policy.iter().map(|&p| round(p)).collect::<Vec<_>>(),
    })
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() <= 1e-4
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn check(name: &str, got: Value) {
    let path = format!("{}/tests/golden/{name}.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}; run with UPDATE_GOLDEN=1"));
    let want: Value = serde_json::from_str(&text).unwrap();
    assert!(
        same(&got, &want),
        "{name} differs from {path}\n got: {}",
        serde_json::to_string_pretty(&got).unwrap()
    );
}

fn run<G: Game>(pos: G, config: SearchConfig, budget: SearchBudget) -> Value {
    let mut s = Search::new(pos, Vec::new(), config, budget).unwrap();
    dump(&s.run(&HashEvaluator).unwrap())
}

#[test]
fn golden_tictactoe_puct_with_noise() {
    let c = SearchConfig {
        leaves_per_batch: 4,
        ..Default::default()
    };
    let b = SearchBudget {
        simulations: Some(300),
        root_noise: true,
        seed: 7,
    };
    check(
        "tictactoe_puct_noise",
        run(Ttt::from_str("........."), c, b),
    );
}

#[test]
fn golden_connect4_puct_serial() {
    let c = SearchConfig {
        leaves_per_batch: 1,
        terminal_check: true,
        ..Default::default()
    };
    check(
        "connect4_puct_serial",
        run(
            Connect4::from_moves("4453").unwrap(),
            c,
            SearchBudget::simulations(400),
        ),
    );
}

#[test]
fn golden_connect4_gumbel() {
    let c = SearchConfig {
        leaves_per_batch: 8,
        gumbel: Some(GumbelConfig {
            num_sampled_actions: 4,
            ..Default::default()
        }),
        ..Default::default()
    };
    let b = SearchBudget {
        seed: 3,
        ..SearchBudget::simulations(64)
    };
    check(
        "connect4_gumbel",
        run(Connect4::from_moves("4453").unwrap(), c, b),
    );
}
