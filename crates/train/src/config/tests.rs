//! The config module's unit tests: defaults, layers, overrides, validation messages.

use super::*;
use alphazero_registry::games::{Connect4, Connect4Config};

#[test]
fn defaults_of_every_game_are_valid_and_roundtrip_through_toml() {
    for game in GAMES {
        let c = TrainConfig::default_for(game).unwrap();
        c.validate().unwrap();
        let text = c.to_toml_string().unwrap();
        assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), c, "{game}");
    }
    let c4 = TrainConfig::default_for("connect4").unwrap();
    assert_eq!((c4.model.blocks, c4.model.channels), (4, 32));
    assert!((100..=200).contains(&c4.selfplay.simulations));
    let g = TrainConfig::default_for("gomoku").unwrap();
    assert_eq!(g.game.options(), (Some(15), Some("freestyle")));
    assert_eq!(g.replay.capacity, 200_000);
    assert!(matches!(
        TrainConfig::default_for("chess"),
        Err(ConfigError::Invalid { key, .. }) if key == "game.name"
    ));
}

#[test]
fn partial_file_takes_the_rest_from_the_game_defaults() {
    let c = TrainConfig::from_toml_str(
        r#"
        [game]
        name = "gomoku"
        size = "9"
        [selfplay]
        simulations = 50
        dirichlet_alpha = 1
        [selfplay.resign]
        enabled = true
        [train]
        optimizer = "sgd"
        lr_schedule = "cosine"
        "#,
    )
    .unwrap();
    assert_eq!(c.game.options(), (Some(9), Some("freestyle")));
    assert_eq!(c.selfplay.simulations, 50);
    assert_eq!(c.selfplay.search.dirichlet_alpha, 1.0);
    assert!(c.selfplay.resign.enabled);
    assert_eq!(c.selfplay.resign.threshold, -0.9);
    assert_eq!(c.train.optimizer, Optimizer::Sgd);
    assert_eq!(c.train.lr_schedule, LrSchedule::Cosine);
    assert_eq!(c.model.blocks, 10);
}

#[test]
fn unknown_keys_are_errors_naming_the_full_key() {
    let err = TrainConfig::from_toml_str("[game]\nname='connect4'\n[selfplay]\nsimulatons = 5\n")
        .unwrap_err();
    assert_eq!(
        err,
        ConfigError::UnknownKey {
            key: "selfplay.simulatons".into()
        }
    );
    let err = TrainConfig::from_toml_str("[game]\nname='connect4'\n[selfplay.resign]\nfoo = 1\n")
        .unwrap_err();
    assert_eq!(err.to_string(), "unknown config key selfplay.resign.foo");
    let err = TrainConfig::from_toml_str("[game]\nname='connect4'\n[bogus]\n").unwrap_err();
    assert_eq!(
        err,
        ConfigError::UnknownKey {
            key: "bogus".into()
        }
    );
}

#[test]
fn wrong_types_and_negative_integers_name_the_key() {
    let err =
        TrainConfig::from_toml_str("[game]\nname='connect4'\n[selfplay]\nsimulations = 'many'\n")
            .unwrap_err();
    assert!(
        matches!(&err, ConfigError::Type { key, .. } if key == "selfplay.simulations"),
        "{err}"
    );
    let err =
        TrainConfig::from_toml_str("[game]\nname='connect4'\n[model]\nblocks = -3\n").unwrap_err();
    assert!(
        err.to_string().starts_with("model.blocks must be >= 1"),
        "{err}"
    );
    let err =
        TrainConfig::from_toml_str("[game]\nname='connect4'\n[run]\nseed = -3\n").unwrap_err();
    assert!(
        err.to_string().starts_with("run.seed must be >= 0"),
        "{err}"
    );
    let err = TrainConfig::from_toml_str("selfplay = 3\n[game]\nname='connect4'\n").unwrap_err();
    assert!(
        matches!(&err, ConfigError::Type { key, expected: "a table", .. } if key == "selfplay")
    );
    let err = TrainConfig::from_toml_str("[game]\nname='connect4'\n[train]\noptimizer = 'adam'\n")
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("adam") && msg.contains("train.optimizer"),
        "{msg}"
    );
}

#[test]
fn negative_and_zero_simulations_report_the_same_real_bound() {
    let base = TrainConfig::default_for("connect4").unwrap();
    for v in ["-5", "0"] {
        let err = base
            .with_overrides(&[format!("selfplay.simulations={v}")])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("selfplay.simulations must be >= 1 (got {v})")
        );
    }
}

#[test]
fn gomoku_size_is_accepted_as_integer_or_string() {
    let from_int = TrainConfig::from_toml_str("[game]\nname='gomoku'\nsize = 9\n").unwrap();
    let from_str = TrainConfig::from_toml_str("[game]\nname='gomoku'\nsize = \"9\"\n").unwrap();
    assert_eq!(from_int, from_str);
    assert_eq!(from_int.game.options().0, Some(9));
    let over = TrainConfig::parse("", &["game.name=gomoku", "game.size=9"]).unwrap();
    assert_eq!(over.game.options().0, Some(9));
    let again = over.with_overrides(&["game.size=10"]).unwrap();
    assert_eq!(again.game.options().0, Some(10));
    // The saved form parses back.
    let text = again.to_toml_string().unwrap();
    assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), again);
    let err = TrainConfig::parse("", &["game.name=gomoku", "game.size=30"]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("game.size must be a board side from 5 to 20"),
        "{err}"
    );
}

#[test]
fn size_or_rule_for_a_game_other_than_gomoku_is_an_error() {
    for (o, key) in [
        ("game.size=9", "game.size"),
        ("game.rule=renju", "game.rule"),
    ] {
        let err = TrainConfig::parse("", &["game.name=connect4", o]).unwrap_err();
        assert!(
            matches!(&err, ConfigError::Invalid { key: k, message, .. }
                if k == key && message.contains("gomoku only")),
            "{o}: {err}"
        );
    }
}

#[test]
fn global_pooling_is_off_by_default_and_turns_on_in_the_network_config() {
    // Files written before the keys existed (no such key in them) read as off.
    let old = TrainConfig::from_toml_str(
        "[game]\nname = \"connect4\"\n[model]\nblocks = 4\nchannels = 32\nvalue_hidden = 32\n",
    )
    .unwrap();
    assert!(!old.model.global_pooling);
    let net = settings::network_config::<Connect4>(&old, &Connect4Config);
    assert_eq!(net.global_pooling, None);

    let on = old.with_overrides(&["model.global_pooling=true"]).unwrap();
    let net = settings::network_config::<Connect4>(&on, &Connect4Config);
    assert_eq!(
        net.global_pooling,
        Some(alphazero_nn::GlobalPooling {
            blocks: vec![2],
            channels: 8
        })
    );
    net.validate().unwrap();
    let wider = on
        .with_overrides(&["model.global_pooling_channels=16"])
        .unwrap();
    let net = settings::network_config::<Connect4>(&wider, &Connect4Config);
    assert_eq!(net.global_pooling.map(|g| g.channels), Some(16));
    // The effective config names both keys and reads back the same.
    let text = wider.to_toml_string().unwrap();
    assert!(text.contains("global_pooling = true"), "{text}");
    assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), wider);
}

#[test]
fn global_pooling_that_does_not_fit_the_trunk_is_rejected_naming_the_key() {
    let base = TrainConfig::default_for("connect4").unwrap();
    let err = base
        .with_overrides(&["model.global_pooling_channels=32"])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "model.global_pooling_channels must be below model.channels (32), or 0 for a \
         quarter of them (got 32)"
    );
    let err = base
        .with_overrides(&["model.channels=1", "model.global_pooling=true"])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("model.global_pooling needs model.channels >= 2 (got 1)"),
        "{err}"
    );
    let err = base
        .with_overrides(&["model.global_pooling=1"])
        .unwrap_err();
    assert!(err.to_string().contains("model.global_pooling"), "{err}");
}

#[test]
fn oversized_model_is_rejected_with_the_bound() {
    let base = TrainConfig::default_for("connect4").unwrap();
    let err = base.with_overrides(&["model.channels=100000"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("model.channels must be in 1..={MAX_CHANNELS} (got 100000)")
    );
}

#[test]
fn infinite_and_nan_values_are_rejected_as_not_finite() {
    let base = TrainConfig::default_for("connect4").unwrap();
    for (set, key) in [
        ("selfplay.temperature=inf", "selfplay.temperature"),
        ("train.lr=inf", "train.lr"),
    ] {
        let err = base.with_overrides(&[set]).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{key} must be a finite number")),
            "{set}: {err}"
        );
    }
    // The search's keys, by the search's own rules.
    for (set, msg) in [
        (
            "selfplay.dirichlet_epsilon=nan",
            "selfplay.search.dirichlet_epsilon must be in [0, 1] (got NaN)",
        ),
        (
            "selfplay.search.fpu_reduction=inf",
            "selfplay.search.fpu_reduction must be a number >= 0 (got inf)",
        ),
    ] {
        let err = base.with_overrides(&[set]).unwrap_err().to_string();
        assert_eq!(err, msg, "{set}");
    }
}

#[test]
fn fast_simulations_error_says_how_to_fix_it() {
    let base = TrainConfig::default_for("connect4").unwrap();
    let err = base
        .with_overrides(&["selfplay.simulations=10"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("selfplay.playout_cap.fast_simulations=N")
            && err.contains("selfplay.playout_cap.enabled=false"),
        "{err}"
    );
}

#[test]
fn game_names_are_read_from_text_and_overrides() {
    assert_eq!(
        game_name_in("[game]\nname = 'xiangqi'\n").unwrap(),
        Some("xiangqi".to_string())
    );
    assert_eq!(game_name_in("[selfplay]\nsimulations = 5\n").unwrap(), None);
    assert!(game_name_in("[game\n").is_err());
    assert_eq!(
        game_name_in_override("game.name=xiangqi").unwrap(),
        Some("xiangqi".to_string())
    );
    assert_eq!(
        game_name_in_override(" game.name = \"gomoku\"").unwrap(),
        Some("gomoku".to_string())
    );
    assert_eq!(
        game_name_in_override("selfplay.simulations=5").unwrap(),
        None
    );
    assert!(game_name_in_override("game.name").is_err());
}

#[test]
fn sections_set_by_a_file_are_found() {
    assert!(sets_section_in("[model]\nblocks = 2\n", "model").unwrap());
    assert!(!sets_section_in("[model]\n[game]\nname = 'gomoku'\n", "model").unwrap());
    assert!(!sets_section_in("[train]\nlr = 0.1\n", "model").unwrap());
    assert!(sets_section_in("model.channels = 8\n", "model").unwrap());
    assert!(sets_section_in("[model\n", "model").is_err());
}

#[test]
fn missing_game_name_is_an_error() {
    assert_eq!(
        TrainConfig::from_toml_str("[selfplay]\nsimulations = 5\n").unwrap_err(),
        ConfigError::MissingKey {
            key: "game.name".into()
        }
    );
    assert!(matches!(
        TrainConfig::from_toml_str("[game\n"),
        Err(ConfigError::Syntax(_))
    ));
}

#[test]
fn values_of_disabled_features_are_validated() {
    // Regression: gating.sprt.alpha=-3 was accepted while the SPRT was off.
    let c4 = TrainConfig::default_for("connect4").unwrap();
    assert!(!c4.gating.enabled && !c4.gating.sprt.enabled);
    let gomoku = TrainConfig::default_for("gomoku").unwrap();
    assert!(!gomoku.selfplay.playout_cap.enabled);
    assert_eq!(gomoku.train.lr_schedule, LrSchedule::Constant);
    let cases: &[(&TrainConfig, &str, &str)] = &[
        (
            &c4,
            "gating.sprt.alpha=-3",
            "gating.sprt.alpha must be in (0, 0.5)",
        ),
        (
            &c4,
            "gating.sprt.beta=0.7",
            "gating.sprt.beta must be in (0, 0.5)",
        ),
        (
            &c4,
            "gating.sprt.elo1=-5",
            "gating.sprt.elo1 must be > gating.sprt.elo0",
        ),
        (
            &c4,
            "gating.win_rate=2",
            "gating.win_rate must be in [0, 1]",
        ),
        (&c4, "gating.games=0", "gating.games must be >= 1"),
        (
            &c4,
            "gating.simulations=0",
            "gating.simulations must be >= 1",
        ),
        (
            &gomoku,
            "selfplay.playout_cap.fast_simulations=0",
            "selfplay.playout_cap.fast_simulations must be >= 1",
        ),
        (
            &gomoku,
            "train.lr_step_factor=-3",
            "train.lr_step_factor must be in [0, 1]",
        ),
        (
            &gomoku,
            "train.lr_step_factor=0",
            "train.lr_step_factor must be > 0",
        ),
        (
            &gomoku,
            "train.lr_step_every=0",
            "train.lr_step_every must be >= 1",
        ),
        (&gomoku, "train.lr_min=-1", "train.lr_min must be >= 0"),
        (
            &c4.with_overrides(&["train.steps_per_iteration=5"]).unwrap(),
            "train.samples_per_position=-1",
            "train.samples_per_position must be > 0",
        ),
        (
            &gomoku,
            "eval.solver_every=5",
            "eval.solver_every applies to connect4 only",
        ),
        (
            &c4,
            "eval.solver_positions=0",
            "eval.solver_positions must be >= 1",
        ),
        (
            &c4,
            "actors.max_games_per_iteration=1",
            "actors.max_games_per_iteration must be 0 (= selfplay.games_per_iteration) or >=",
        ),
    ];
    for (base, o, msg) in cases {
        let err = base.with_overrides(&[o]).unwrap_err().to_string();
        assert!(err.starts_with(msg), "{o}: {err}");
    }
    // A value checked only against another key still waits for its feature: a gomoku
    // run of 16 simulations keeps its (unused) 64 fast simulations.
    gomoku
        .with_overrides(&["selfplay.simulations=16"])
        .expect("the playout cap is off");
}

#[test]
fn validate_names_the_bad_key() {
    let cases: &[(&str, &str)] = &[
        (
            "selfplay.simulations=0",
            "selfplay.simulations must be >= 1",
        ),
        (
            "selfplay.dirichlet_epsilon=1.5",
            "selfplay.search.dirichlet_epsilon must be in [0, 1]",
        ),
        (
            "selfplay.search.leaves_per_batch=0",
            "selfplay.search.leaves_per_batch must be a whole number 1-256",
        ),
        (
            "selfplay.search.c_puct={ c_base = 0, c_init = 1 }",
            "selfplay.search.c_puct.c_base must be finite and > 0",
        ),
        ("train.lr=0", "train.lr must be > 0"),
        (
            "gating.sprt.elo1=-5",
            "gating.sprt.elo1 must be > gating.sprt.elo0",
        ),
        (
            "replay.recent_fraction=2",
            "replay.recent_fraction must be in [0, 1]",
        ),
        (
            "run.iterations=0",
            "run.iterations must be >= 1 when run.time_budget_minutes is 0",
        ),
        ("game.name=chess", "game.name must be one of"),
        ("train.momentum=1", "train.momentum must be < 1"),
        (
            "train.batch_size=1000000000",
            "train.batch_size must be <= 65536",
        ),
        (
            "selfplay.simulations=1000000000",
            "selfplay.simulations must be <= 65535",
        ),
        (
            "train.aux_policy_weight=-0.15",
            "train.aux_policy_weight must be >= 0",
        ),
        (
            "train.aux_ownership_weight=-1",
            "train.aux_ownership_weight must be >= 0",
        ),
        (
            "train.value_q_weight=1.5",
            "train.value_q_weight must be in [0, 1]",
        ),
        (
            "train.value_q_weight=-0.1",
            "train.value_q_weight must be in [0, 1]",
        ),
    ];
    let base = TrainConfig::default_for("connect4")
        .unwrap()
        .with_overrides(&[
            "run.time_budget_minutes=0",
            "run.iterations=100",
            "gating.sprt.enabled=true",
        ])
        .unwrap();
    for (o, msg) in cases {
        let err = base.with_overrides(&[o]).unwrap_err();
        assert!(err.to_string().starts_with(msg), "{o}: {err}");
    }
    // A size out of range cannot be a config's game (a spec checks it when it is read): the
    // text of a file names the key.
    let err = TrainConfig::from_toml_str("[game]\nname = 'gomoku'\nsize = '30'\n").unwrap_err();
    assert!(
        matches!(&err, ConfigError::Invalid { key, .. } if key == "game.size"),
        "{err}"
    );
}

#[test]
fn restart_settings_are_checked_and_off_in_configs_without_them() {
    let base = TrainConfig::default_for("connect4").unwrap();
    assert_eq!(base.selfplay.restarts.share, 0.0, "off by default");
    for (o, msg) in [
        (
            "selfplay.restarts.share=1",
            "selfplay.restarts.share must be in [0, 1)",
        ),
        (
            "selfplay.restarts.share=-0.1",
            "selfplay.restarts.share must be in [0, 1)",
        ),
        (
            "selfplay.restarts.window=0",
            "selfplay.restarts.window must be >= 1",
        ),
        (
            "selfplay.restarts.window=-3",
            "selfplay.restarts.window must be >= 1",
        ),
        (
            "selfplay.restarts.shares=0.3",
            "unknown config key selfplay.restarts.shares",
        ),
    ] {
        let err = base.with_overrides(&[o]).unwrap_err().to_string();
        assert!(err.starts_with(msg), "{o}: {err}");
    }
    let err = base
        .with_overrides(&["selfplay.restarts.rule=attack"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("attack") && err.contains("defend") && err.contains("uniform"),
        "{err}"
    );
    let on = base
        .with_overrides(&[
            "selfplay.restarts.share=0.3",
            "selfplay.restarts.rule=uniform",
        ])
        .unwrap();
    assert_eq!(
        on.selfplay.restarts,
        RestartsSection {
            share: 0.3,
            rule: RestartRule::Uniform,
            window: 10
        }
    );
    // A saved config written before restarts existed (no such table) loads with them off,
    // and the settings round-trip through the saved text.
    let old = TrainConfig::from_toml_str(
        "[game]\nname = \"gomoku\"\n[selfplay]\nsimulations = 50\nmax_plies = 100\n",
    )
    .unwrap();
    assert_eq!(old.selfplay.restarts.share, 0.0);
    let text = on.to_toml_string().unwrap();
    assert!(text.contains("[selfplay.restarts]"), "{text}");
    assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), on);
}

#[test]
fn overrides_apply_typed_values_and_reject_unknown_keys() {
    let c = TrainConfig::default_for("connect4")
        .unwrap()
        .with_overrides(&[
            "selfplay.simulations=50",
            "selfplay.playout_cap.enabled = true",
            "train.optimizer=sgd",
            "train.lr=1e-2",
            "run.time_budget_minutes=30",
        ])
        .unwrap();
    assert_eq!(c.selfplay.simulations, 50);
    assert!(c.selfplay.playout_cap.enabled);
    assert_eq!(c.train.optimizer, Optimizer::Sgd);
    assert_eq!(c.train.lr, 0.01);
    assert_eq!(c.run.time_budget_minutes, 30.0);
    let base = TrainConfig::default_for("connect4").unwrap();
    assert_eq!(
        base.with_overrides(&["selfplay.sims=5"]).unwrap_err(),
        ConfigError::UnknownKey {
            key: "selfplay.sims".into()
        }
    );
    assert_eq!(
        base.with_overrides(&["foo.bar=1"]).unwrap_err(),
        ConfigError::UnknownKey {
            key: "foo.bar".into()
        },
        "an unknown section names the whole key"
    );
    assert_eq!(
        base.with_overrides(&["selfplay"]).unwrap_err(),
        ConfigError::BadOverride("selfplay".into())
    );
    assert!(matches!(
        base.with_overrides(&["selfplay.simulations.x=1"]),
        Err(ConfigError::Type { key, .. }) if key == "selfplay.simulations"
    ));
}

#[test]
fn xiangqi_defaults_learn_without_gating_and_with_the_q_value_target() {
    let x = TrainConfig::default_for("xiangqi").unwrap();
    assert!(!x.gating.enabled, "draw-heavy gating never promoted");
    assert_eq!(x.train.value_q_weight, 0.5);
    assert!(x.selfplay.resign.enabled);
    assert_eq!(
        x.selfplay.search.draw_score, -0.2,
        "self-play avoids repetition draws"
    );
    let c = TrainConfig::default_for("connect4").unwrap();
    assert_eq!(c.selfplay.search.draw_score, 0.0);
    assert!(matches!(
        x.with_overrides(&["selfplay.draw_score=-1.5"]),
        Err(ConfigError::Invalid { key, .. }) if key == "selfplay.search.draw_score"
    ));
    let c4 = TrainConfig::default_for("connect4").unwrap();
    assert_eq!(
        (x.gating.enabled, x.train.value_q_weight),
        (c4.gating.enabled, c4.train.value_q_weight)
    );
}

/// Regression guard for the Xiangqi issue "a mating move the network rates low is never
/// tried": Xiangqi self-play runs the mate tactics by default and in the CPU config.
#[test]
fn xiangqi_self_play_runs_the_mate_tactics() {
    let x = TrainConfig::default_for("xiangqi").unwrap();
    assert_eq!(x.selfplay.search.tactical_budget, Some(200));
    assert!(
        !x.selfplay.search.terminal_check,
        "the tactics replace the costly check"
    );
    assert_eq!(
        shipped_config("xiangqi-cpu.toml")
            .selfplay
            .search
            .tactical_budget,
        Some(200)
    );
}

/// A shipped config file of `configs/`, parsed as `train --config` does.
fn shipped_config(name: &str) -> TrainConfig {
    let path = format!("{}/../../configs/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    TrainConfig::from_toml_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn xiangqi_cpu_config_is_small_gumbel_ungated_resigning_and_starts_some_games_at_random() {
    let c = shipped_config("xiangqi-cpu.toml");
    assert_eq!(c.game.name(), "xiangqi");
    assert!(
        c.model.blocks <= 4 && c.model.channels <= 32,
        "{:?}",
        c.model
    );
    assert!(!c.gating.enabled);
    assert_eq!(c.train.value_q_weight, 0.5);
    // Gumbel self-play (32 simulations beat 16, which beat PUCT) and random starts won
    // their equal-time measurements (docs/learning-efficiency.md).
    assert!(c.selfplay.search.gumbel.is_some());
    assert_eq!(c.selfplay.simulations, 32);
    assert!(!c.selfplay.playout_cap.enabled);
    assert!(c.selfplay.resign.enabled);
    assert!(c.run.time_budget_minutes > 0.0);
    assert_eq!(c.selfplay.random_starts.share, 0.3);
    shipped_config("gomoku-8x8-cpu.toml");
}

#[test]
fn game_name_override_switches_defaults_in_parse() {
    let c = TrainConfig::parse("", &["game.name=xiangqi", "run.seed=7"]).unwrap();
    assert_eq!(c.game.name(), "xiangqi");
    assert_eq!(c.selfplay.max_plies, 300);
    assert_eq!(c.run.seed, 7);
}

#[test]
fn learner_steps_and_schedules() {
    let mut t = TrainConfig::default_for("connect4").unwrap().train;
    t.batch_size = 100;
    t.samples_per_position = 2.0;
    assert_eq!(t.steps_for(1001), 21);
    assert_eq!(t.steps_for(0), 1);
    t.steps_per_iteration = 7;
    assert_eq!(t.steps_for(1001), 7);
    t.lr = 0.1;
    t.lr_schedule = LrSchedule::Step;
    t.lr_step_every = 10;
    t.lr_step_factor = 0.5;
    // A run limited by iterations: the fraction of `run.iterations` done.
    assert_eq!(t.lr_at_progress(25, Some(0.25)), 0.025);
    t.lr_schedule = LrSchedule::Cosine;
    t.lr_min = 0.0;
    assert!((t.lr_at_progress(50, Some(0.5)) - 0.05).abs() < 1e-12);
    assert!(t.lr_at_progress(100, Some(1.0)).abs() < 1e-12);
    // A time-limited run: the fraction of the time budget spent.
    assert!((t.lr_at_progress(3, Some(0.5)) - 0.05).abs() < 1e-12);
    assert!(t.lr_at_progress(3, Some(1.5)).abs() < 1e-12);
    assert_eq!(t.lr_at_progress(3, None), 0.1);
}

#[test]
fn gating_search_keys_default_to_selfplay_and_each_can_be_set_alone() {
    use super::settings::gating_search_config;
    use alphazero_mcts::{CPuct, SearchConfig};
    // Left out: gating searches as self-play does (with gating.simulations, no noise),
    // following a changed selfplay key, and the saved config has no [gating.search].
    let c = TrainConfig::parse(
        "[game]\nname = \"gomoku\"\nsize = 9\nrule = \"freestyle\"\n",
        &["selfplay.c_puct=2.5", "gating.simulations=7"],
    )
    .unwrap();
    assert!(c.gating.search.is_unset());
    assert_eq!(gating_search_config(&c), Ok(c.selfplay.search.clone()));
    assert!(!c.to_toml_string().unwrap().contains("[gating.search]"));
    // Set: only that key differs from self-play's search.
    let g = c
        .with_overrides(&["gating.search.c_puct=1", "gating.search.tactical_budget=0"])
        .unwrap();
    assert_eq!(g.selfplay.search.c_puct, CPuct::Constant(2.5));
    let (gate, own) = (gating_search_config(&g).unwrap(), g.selfplay.search.clone());
    assert_eq!(gate.c_puct, CPuct::Constant(1.0));
    assert_eq!(gate.tactical_budget, None);
    assert_ne!(
        own.tactical_budget, None,
        "gomoku self-play keeps its tactics"
    );
    assert_eq!(
        SearchConfig {
            c_puct: own.c_puct,
            tactical_budget: own.tactical_budget,
            ..gate
        },
        own
    );
    // Saved and read back (a run directory's config.toml), and written in a file.
    let saved = g.to_toml_string().unwrap();
    assert!(saved.contains("[gating.search]"), "{saved}");
    assert_eq!(TrainConfig::from_toml_str(&saved).unwrap(), g);
    let file = TrainConfig::parse(
        "[game]\nname = \"connect4\"\n[gating.search]\nterminal_check = false\ngumbel = true\n",
        &[] as &[&str],
    )
    .unwrap();
    let gate = gating_search_config(&file).unwrap();
    assert!(!gate.terminal_check);
    assert_eq!(gate.gumbel, Some(alphazero_mcts::GumbelConfig::default()));
    assert_eq!(gate.c_puct, file.selfplay.search.c_puct);
    assert!(file.selfplay.search.terminal_check && file.selfplay.search.gumbel.is_none());
    assert!(!file.gating.search.0.contains_key("c_puct"));
}

#[test]
fn gating_search_errors_name_the_key_written() {
    let c = TrainConfig::default_for("connect4").unwrap();
    let err = |o: &str| c.with_overrides(&[o]).unwrap_err();
    assert!(matches!(err("gating.search.dirichlet_alpha=1"),
        ConfigError::UnknownKey { key } if key == "gating.search.dirichlet_alpha"));
    assert!(matches!(err("gating.search.gumbel=3"),
        ConfigError::Type { key, .. } if key == "gating.search.gumbel"));
    for (o, msg) in [
        (
            "gating.search.c_puct=0",
            "gating.search.c_puct must be a number in (0, 100]",
        ),
        (
            "gating.search.draw_score=2",
            "gating.search.draw_score must be in [-1, 1]",
        ),
        (
            "gating.search.tactical_budget=-1",
            "gating.search.tactical_budget must be >= 0",
        ),
    ] {
        assert!(err(o).to_string().starts_with(msg), "{o}: {}", err(o));
    }
}

#[test]
fn policy_and_value_heads_follow_the_model_keys_and_conv_is_refused_where_the_game_has_none() {
    use alphazero_registry::games::{Xiangqi, XiangqiConfig};
    let base = TrainConfig::parse("[game]\nname = \"xiangqi\"\n", &[] as &[&str]).unwrap();
    assert_eq!(
        base.model.policy_head,
        PolicyHead::Dense,
        "dense by default"
    );
    let net = settings::network_config::<Xiangqi>(&base, &XiangqiConfig::default());
    assert_eq!(net.policy_planes, None);
    let conv = base.with_overrides(&["model.policy_head=conv"]).unwrap();
    let net = settings::network_config::<Xiangqi>(&conv, &XiangqiConfig::default());
    assert_eq!(net.policy_planes.map(|p| p.planes), Some(50));
    assert!(conv
        .to_toml_string()
        .unwrap()
        .contains("policy_head = \"conv\""));
    let err = TrainConfig::parse("[game]\nname = \"connect4\"\n", &["model.policy_head=conv"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("model.policy_head must be dense for connect4"),
        "{err}"
    );
    assert_eq!(
        net.policy_channels, 128,
        "the conv head reads its planes off the trunk's width"
    );
    let dense = settings::network_config::<Xiangqi>(&base, &XiangqiConfig::default());
    assert_eq!(dense.policy_channels, 2, "AlphaZero's dense head width");
    let narrow = conv.with_overrides(&["model.policy_channels=8"]).unwrap();
    let net = settings::network_config::<Xiangqi>(&narrow, &XiangqiConfig::default());
    assert_eq!(
        (net.policy_planes.is_some(), net.policy_channels),
        (true, 8)
    );
    let err = base
        .with_overrides(&["model.policy_channels=5000"])
        .unwrap_err()
        .to_string();
    assert!(err.contains("model.policy_channels"), "{err}");
    let pooled = conv.with_overrides(&["model.value_head=pooled"]).unwrap();
    let net = settings::network_config::<Xiangqi>(&pooled, &XiangqiConfig::default());
    assert_eq!(
        (net.value_pool, net.value_channels, net.size_independent()),
        (Some(alphazero_nn::ValuePool::MeanMax), 128, true),
        "value_hidden planes pooled over the board"
    );
    assert_eq!(
        settings::network_config::<Xiangqi>(&base, &XiangqiConfig::default()).value_pool,
        None
    );
    let err = TrainConfig::parse("[game]\nname = \"xiangqi\"\n", &["model.policy_head=flat"])
        .unwrap_err()
        .to_string();
    assert!(err.contains("model.policy_head"), "{err}");
}
