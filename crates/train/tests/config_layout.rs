//! The nested configuration layout: `[selfplay.search]` read straight into the search's
//! config, the flat `[selfplay]` layout of older files and overrides still read, and the
//! errors of a key given twice or unknown.

use alphazero_mcts::{CPuct, SearchConfig};
use alphazero_registry::GameSpec;
use alphazero_train::config::{ConfigError, LEGACY_SEARCH_KEYS, ROOT_NOISE_KEYS};
use alphazero_train::settings::{gating_search_config, selfplay_config};
use alphazero_train::TrainConfig;
use toml::{Table, Value};

/// The saved config of a run written before `[selfplay.search]` (a copy of a real run's).
const FLAT: &str = include_str!("data/config-flat-selfplay.toml");

fn search_table(cfg: &TrainConfig) -> Table {
    match Value::try_from(&cfg.selfplay.search).unwrap() {
        Value::Table(t) => t,
        v => panic!("not a table: {v}"),
    }
}

#[test]
fn a_saved_config_in_the_flat_layout_loads_with_identical_values() {
    let old = TrainConfig::from_toml_str(FLAT).unwrap();
    // The search the loop ran for this run before the layout changed (the flat keys, the
    // rest the search's defaults).
    assert_eq!(
        old.selfplay.search,
        SearchConfig {
            c_puct: CPuct::Constant(1.5),
            fpu_reduction: 0.2,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            gumbel: None,
            terminal_check: false,
            tactical_budget: Some(200),
            dirichlet_alpha_total: None,
            draw_score: -0.2,
            ..SearchConfig::default()
        }
    );
    assert_eq!(
        (old.selfplay.simulations, old.model.blocks),
        (96, 4),
        "the keys that did not move"
    );
    // Saved again, it is in the new layout and reads back equal.
    let text = old.to_toml_string().unwrap();
    assert!(text.contains("[selfplay.search]"), "{text}");
    let table: Table = toml::from_str(&text).unwrap();
    for key in LEGACY_SEARCH_KEYS {
        assert!(
            !table["selfplay"].as_table().unwrap().contains_key(key),
            "{key}"
        );
    }
    assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), old);
}

#[test]
fn defaults_round_trip_through_toml_for_every_game_with_each_written_form() {
    for name in GameSpec::NAMES {
        let d = TrainConfig::default_for(name).unwrap();
        assert_eq!(
            TrainConfig::from_toml_str(&d.to_toml_string().unwrap()).unwrap(),
            d,
            "{name}"
        );
        // c_puct as a table and gumbel as a table are saved and read back as such.
        let c = d
            .with_overrides(&[
                "selfplay.search.c_puct={ c_base = 19652, c_init = 1.25 }",
                "selfplay.search.gumbel={ num_sampled_actions = 8 }",
                "gating.search.c_puct=3",
            ])
            .unwrap();
        assert_eq!(c.selfplay.search.c_puct, CPuct::default());
        assert_eq!(
            c.selfplay.search.gumbel.map(|g| g.num_sampled_actions),
            Some(8)
        );
        let text = c.to_toml_string().unwrap();
        assert_eq!(
            TrainConfig::from_toml_str(&text).unwrap(),
            c,
            "{name}: {text}"
        );
        // And back to a number, on a config that holds the table.
        let back = c
            .with_overrides(&["selfplay.search.c_puct=2", "selfplay.search.gumbel=false"])
            .unwrap();
        assert_eq!(back.selfplay.search.c_puct, CPuct::Constant(2.0));
        assert_eq!(back.selfplay.search.gumbel, None);
    }
}

/// `v` as the search stores it (an `f32`).
fn as_stored(v: &Value) -> Value {
    match v {
        Value::Float(f) => Value::Float(f64::from(*f as f32)),
        v => v.clone(),
    }
}

/// A valid value other than `v` of the same type.
fn changed(v: &Value) -> Value {
    match v {
        Value::Boolean(b) => Value::Boolean(!b),
        Value::Integer(i) => Value::Integer(i + 3),
        Value::Float(f) => Value::Float(f * 0.5 + 0.3),
        v => panic!("no changed value for {v}"),
    }
}

#[test]
fn every_key_of_selfplay_search_reaches_the_searches_the_pipeline_runs() {
    for name in GameSpec::NAMES {
        let base = TrainConfig::default_for(name).unwrap();
        let table = search_table(&base);
        assert!(table.len() >= 15, "{name}: {table:?}");
        for (key, value) in &table {
            let new = changed(value);
            for written in [format!("selfplay.search.{key}"), format!("selfplay.{key}")] {
                if written == format!("selfplay.{key}")
                    && !LEGACY_SEARCH_KEYS.contains(&key.as_str())
                {
                    continue;
                }
                let cfg = base
                    .with_overrides(&[format!("{written}={new}")])
                    .unwrap_or_else(|e| panic!("{name} {written}={new}: {e}"));
                // Self-play: the search of every move, its budget the loop's.
                let sp = selfplay_config(&cfg, 9);
                assert_eq!(
                    search_table(&cfg).get(key),
                    Some(&as_stored(&new)),
                    "{name} {written}={new}"
                );
                assert_eq!(sp.search, cfg.selfplay.search);
                assert_eq!(sp.simulations, cfg.selfplay.simulations);
                assert_ne!(
                    sp.search,
                    selfplay_config(&base, 9).search,
                    "{name} {written}"
                );
                // Gating searches as self-play does (its budget without root noise).
                assert_eq!(
                    gating_search_config(&cfg).unwrap(),
                    cfg.selfplay.search,
                    "{name} {written}: gating"
                );
            }
            // The gating match's own value of the key, self-play's unchanged.
            if !ROOT_NOISE_KEYS.contains(&key.as_str()) {
                let cfg = base
                    .with_overrides(&[format!("gating.search.{key}={new}")])
                    .unwrap();
                assert_eq!(cfg.selfplay.search, base.selfplay.search);
                assert_ne!(
                    gating_search_config(&cfg).unwrap(),
                    gating_search_config(&base).unwrap(),
                    "{name} gating.search.{key}"
                );
            }
        }
    }
}

#[test]
fn a_key_in_its_old_and_new_place_is_an_error_naming_both() {
    let both_in_a_file =
        "[game]\nname = 'connect4'\n[selfplay]\nc_puct = 2\n[selfplay.search]\nc_puct = 3\n";
    let want = ConfigError::TwoSpellings {
        old: "selfplay.c_puct".into(),
        new: "selfplay.search.c_puct".into(),
    };
    assert_eq!(
        TrainConfig::from_toml_str(both_in_a_file).unwrap_err(),
        want
    );
    assert_eq!(
        want.to_string(),
        "selfplay.c_puct and selfplay.search.c_puct are one key, in its old and its new \
         place; give it once, as selfplay.search.c_puct"
    );
    let c4 = TrainConfig::default_for("connect4").unwrap();
    for pair in [
        ["selfplay.c_puct=2", "selfplay.search.c_puct=3"],
        ["selfplay.search.c_puct=3", "selfplay.c_puct=2"],
    ] {
        assert_eq!(c4.with_overrides(&pair).unwrap_err(), want, "{pair:?}");
        assert_eq!(
            TrainConfig::parse("[game]\nname = 'connect4'\n", &pair).unwrap_err(),
            want
        );
    }
    // Different sources are not a conflict: an override changes what a file says.
    let c = TrainConfig::parse(
        "[game]\nname = 'connect4'\n[selfplay]\nc_puct = 2\n",
        &["selfplay.search.c_puct=3"],
    )
    .unwrap();
    assert_eq!(c.selfplay.search.c_puct, CPuct::Constant(3.0));
    let c = c.with_overrides(&["selfplay.c_puct=4"]).unwrap();
    assert_eq!(c.selfplay.search.c_puct, CPuct::Constant(4.0));
}

#[test]
fn unknown_search_keys_are_errors_naming_the_key_as_written() {
    let c4 = TrainConfig::default_for("connect4").unwrap();
    for (key, hint) in [
        ("selfplay.search.c_pucct", ""),
        ("selfplay.search.seed", ""),
        // Set by the loop from selfplay.simulations and gating.simulations, not a search key.
        (
            "selfplay.search.simulations",
            " (did you mean selfplay.simulations?)",
        ),
        (
            "gating.search.simulations",
            " (did you mean gating.simulations?)",
        ),
        // A search key that never was in [selfplay], or one put directly in [gating].
        (
            "selfplay.virtual_loss",
            " (did you mean selfplay.search.virtual_loss?)",
        ),
        (
            "gating.tactical_budget",
            " (did you mean gating.search.tactical_budget?)",
        ),
        (
            "gating.search.dirichlet_epsilon",
            " (the gating search has no root noise; dirichlet_epsilon is selfplay.search's)",
        ),
        // Forced playouts act only at a noised root.
        (
            "gating.search.forced_playouts",
            " (the gating search has no root noise; forced_playouts is selfplay.search's)",
        ),
    ] {
        let err = c4.with_overrides(&[format!("{key}=1")]).unwrap_err();
        assert_eq!(err, ConfigError::UnknownKey { key: key.into() });
        assert_eq!(err.to_string(), format!("unknown config key {key}{hint}"));
    }
    let err = TrainConfig::from_toml_str(
        "[game]\nname = 'connect4'\n[selfplay.search]\nc_puct = { c_base = 1, c_int = 1 }\n",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("c_int"), "{err}");
    let err = c4
        .with_overrides(&["selfplay.search.gumbel=3"])
        .unwrap_err();
    assert!(
        matches!(&err, ConfigError::Type { key, .. } if key == "selfplay.search.gumbel"),
        "{err}"
    );
    // The message must name both forms: a boolean, and a table.
    assert!(err.to_string().contains("a boolean or a table"), "{err}");
    let err = c4
        .with_overrides(&["selfplay.search.c_puct=yes"])
        .unwrap_err();
    assert!(err.to_string().contains("a number or a table"), "{err}");
}

/// Every `toml` code block of the README and of `docs/*.md` is a training configuration that
/// loads: the configuration reference lives in `docs/training.md`, so its examples must stay
/// true as keys change.
#[test]
fn the_docs_config_examples_parse() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![format!("{root}/README.md")];
    let mut docs: Vec<String> = std::fs::read_dir(format!("{root}/docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    docs.sort();
    files.extend(docs);
    let mut checked = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for b in text
            .split("```toml\n")
            .skip(1)
            .map(|b| b.split("```").next().unwrap())
        {
            TrainConfig::from_toml_str(b).unwrap_or_else(|e| panic!("{path}: {e}\n{b}"));
            checked.push(path.clone());
        }
    }
    let in_training = checked
        .iter()
        .filter(|p| p.ends_with("docs/training.md"))
        .count();
    assert!(
        in_training >= 2,
        "docs/training.md has {in_training} toml examples; the reference shows two or more"
    );
}
