//! Each game's default training configuration (`TrainConfig::default_for`), every key, compared
//! with committed TOML under `tests/golden/defaults/`. The defaults are assembled from a
//! game-neutral base and the game's training preset in the registry; this guards that moving
//! or editing them changes no value unnoticed. Regenerate with `UPDATE_GOLDEN=1` (and say why
//! in the commit).

use alphazero_registry::GameSpec;
use alphazero_train::TrainConfig;

#[test]
fn each_games_default_training_config_matches_its_golden_toml() {
    for name in GameSpec::NAMES {
        let text = TrainConfig::default_for(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .to_toml_string()
            .unwrap();
        let path = format!(
            "{}/tests/golden/defaults/{name}.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
            std::fs::write(&path, &text).unwrap();
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}; run with UPDATE_GOLDEN=1"));
        assert_eq!(text, want, "{name}: defaults differ from {path}");
        // The golden text is a complete config: it parses back to the same defaults.
        assert_eq!(
            TrainConfig::from_toml_str(&want).unwrap(),
            TrainConfig::default_for(name).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn connect4_config_is_saved_without_empty_size_and_rule_and_old_ones_still_load() {
    for name in ["connect4", "xiangqi"] {
        let cfg = TrainConfig::default_for(name).unwrap();
        let text = cfg.to_toml_string().unwrap();
        let game: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "[game]")
            .skip(1)
            .take_while(|l| !l.starts_with('['))
            .collect();
        assert_eq!(
            game,
            [format!("name = \"{name}\""), String::new()],
            "{name}: {text}"
        );
        assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), cfg, "{name}");
        // A config saved by earlier builds, with the empty keys, loads to the same.
        let old = text.replacen(
            &format!("name = \"{name}\"\n"),
            &format!("name = \"{name}\"\nsize = \"\"\nrule = \"\"\n"),
            1,
        );
        assert!(old.contains("size = \"\""), "{old}");
        assert_eq!(TrainConfig::from_toml_str(&old).unwrap(), cfg, "{name}");
        // Overrides (which go through the saved table) keep working too.
        cfg.with_overrides(&["run.seed=5"]).unwrap();
    }
    // Gomoku keeps its size and rule.
    let text = TrainConfig::default_for("gomoku")
        .unwrap()
        .to_toml_string()
        .unwrap();
    assert!(
        text.contains("[game]\nname = \"gomoku\"\nsize = \"15\"\nrule = \"freestyle\"\n"),
        "{text}"
    );
}
