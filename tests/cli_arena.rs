//! `alphazero arena`: small matches, bad specs, a crashing external engine, SPRT, the ladder.
mod common;
use common::{alphazero, assert_clean_error, fresh_dir, tiny_connect4_run, tiny_connect4_run_of};

#[test]
fn rollout_beats_random_at_connect4_and_results_are_written() {
    let dir = fresh_dir("arena_match");
    let json = dir.join("results.json");
    let pgn = dir.join("games.txt");
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        "rollout:50",
        "random",
        "--games",
        "4",
        "--threads",
        "2",
        "--out",
        json.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("4 games of connect4"), "{}", out.stdout);
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("#1 rollout-50"))
        .unwrap();
    assert!(row.trim_end().ends_with("/4"), "{row}");
    // Two players: the pair's Elo by the ladder's rule (the rollout usually sweeps: an
    // open bound, never a "+819 ±1646" of the fit's prior).
    // Regression (fresh-user trial): it rated the second player over the first ("Elo of
    // rollout-1000 over connect4@200: −70" under a W-D-L counted for the network); now the
    // first over the second, with the first row's W-D-L.
    let elo = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Elo of rollout-50 over random ("))
        .unwrap_or_else(|| panic!("no Elo line: {}", out.stdout));
    assert!(elo.ends_with(']') && elo.contains(" ["), "{elo}");
    let wdl = row.split_whitespace().nth(3).unwrap();
    assert!(elo.contains(&format!("({wdl};")), "{row} / {elo}");
    let (wins, losses) = {
        let n: Vec<u32> = wdl.split('-').map(|x| x.parse().unwrap()).collect();
        (n[0], n[2])
    };
    // The sign follows the first player's score.
    let value = elo.rsplit_once("): ").unwrap().1;
    assert_eq!(value.starts_with('+'), wins > losses, "{row} / {elo}");
    assert_eq!(
        value.starts_with('-') || value.starts_with('−'),
        wins < losses,
        "{row} / {elo}"
    );
    assert!(!out.stdout.contains('±'), "{}", out.stdout);
    let text = std::fs::read_to_string(&json).unwrap();
    for key in ["\"match\"", "\"ratings\"", "\"cross_table\"", "\"players\""] {
        assert!(text.contains(key), "{key} missing");
    }
    let games = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(games.matches("[Game \"connect4\"]").count(), 4);
}

#[test]
fn gauntlet_with_anchor_plays_only_the_first_player_games() {
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        "uniform:20",
        "random",
        "rollout:10",
        "--games",
        "2",
        "--gauntlet",
        "--anchor",
        "random",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("4 games of connect4"), "{}", out.stdout);
    assert!(out.stdout.contains("anchor random = 0"), "{}", out.stdout);
}

#[test]
fn bad_player_specs_are_one_error_line() {
    for players in [
        vec!["rollout:x", "random"],
        vec!["rollout:0", "random"],
        vec!["heuristic:1", "random"],
        vec!["alphabeta:2", "random"],
        vec!["ucci:", "random"],
        vec!["bogus", "random"],
        vec!["random"],
        vec!["net:/nonexistent/net.azc", "random"],
    ] {
        let mut args = vec!["arena", "--game", "connect4", "--players"];
        args.extend(players.iter());
        assert_clean_error(&alphazero(&args), &format!("{players:?}"));
    }
    let bad = [
        vec![
            "arena",
            "--game",
            "connect4",
            "--players",
            "random",
            "random",
            "--openings",
            "sometimes",
        ],
        vec![
            "arena",
            "--game",
            "connect4",
            "--players",
            "random",
            "random",
            "--sprt",
            "5,0",
        ],
        vec![
            "arena",
            "--game",
            "connect4",
            "--players",
            "random",
            "random",
            "random",
            "--sprt",
            "0,10",
        ],
        vec![
            "arena",
            "--game",
            "connect4",
            "--players",
            "random",
            "random",
            "--anchor",
            "nobody",
        ],
        vec![
            "arena",
            "--game",
            "gomoku",
            "--players",
            "gomocup:'unterminated",
            "random",
        ],
    ];
    for args in bad {
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
    // A count that is no number after an existing file: the count is named, not the file.
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        concat!(
            "net:",
            env!("CARGO_MANIFEST_DIR"),
            "/models/connect4.azc:abc"
        ),
        "random",
    ]);
    assert_clean_error(&out, "net:…:abc");
    assert!(
        out.stderr
            .contains("SIMS must be a positive number, got \"abc\""),
        "{}",
        out.stderr
    );
}

#[test]
fn an_external_engine_that_cannot_play_stops_the_arena_before_any_game() {
    // A crashing program, a missing one, and one that echoes instead of answering OK.
    for engine in [
        "gomocup:sh -c 'exit 3'",
        "gomocup:/nonexistent/brain",
        "gomocup:cat",
    ] {
        let out = alphazero(&[
            "arena",
            "--game",
            "gomoku",
            "--size",
            "9",
            "--players",
            engine,
            "heuristic:0",
            "--games",
            "20",
        ]);
        assert_eq!(out.code, 1, "{engine}: {}", out.stdout);
        assert_clean_error(&out, engine);
        assert!(
            out.stderr
                .contains("cannot play, so the match was not started"),
            "{engine}: {}",
            out.stderr
        );
        assert!(!out.stdout.contains("game 1/"), "{engine}: {}", out.stdout);
        assert!(!out.stdout.contains("Elo"), "{engine}: {}", out.stdout);
    }
}

#[test]
fn our_ucci_engine_plays_through_the_ucci_client() {
    let cmd = format!(
        "ucci:{} ucci --fixed-sims 10",
        env!("CARGO_BIN_EXE_alphazero")
    );
    let out = alphazero(&[
        "arena",
        "--game",
        "xiangqi",
        "--players",
        &cmd,
        "random",
        "--games",
        "2",
        "--max-plies",
        "30",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stdout.contains("lost by a player failure"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("2 games of xiangqi"), "{}", out.stdout);
}

#[test]
fn sprt_stops_a_two_player_match_early() {
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        "rollout:100",
        "random",
        "--games",
        "200",
        "--sprt",
        "0,200",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = out.stdout.lines().find(|l| l.starts_with("SPRT")).unwrap();
    assert!(line.contains("H1 accepted"), "{line}");
    let games: usize = out
        .stdout
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(games < 200, "{}", out.stdout);
    // Never on a handful of games (two straight wins already cross the LLR bound).
    assert!(games >= 16, "{}", out.stdout);
}

/// `alphazero arena --game connect4 --snapshots DIR --games 2 EXTRA…`.
fn snapshot_ladder(dir: &std::path::Path, extra: &[&str]) -> common::Output {
    let mut args = vec![
        "arena",
        "--game",
        "connect4",
        "--snapshots",
        dir.to_str().unwrap(),
        "--games",
        "2",
    ];
    args.extend_from_slice(extra);
    alphazero(&args)
}

#[test]
fn snapshot_ladder_rates_the_run_networks_against_random_and_plots() {
    let dir = fresh_dir("arena_ladder");
    tiny_connect4_run(&dir);
    let out = snapshot_ladder(&dir, &["--sims", "8"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("anchor random = 0"), "{}", out.stdout);
    assert!(out.stdout.contains("champion-0000@8"), "{}", out.stdout);
    // Regression (fresh-user trial): the header (networks, run, pairs) was printed twice,
    // once on stderr before the games and once on stdout after them.
    let both = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(both.matches(" and random").count(), 1, "{both}");
    // Regression: snapshot-00001 is champion-0001's network (promoted at iteration 1, no
    // gating), and was rated as a second player. It is rated once, as the champion.
    assert!(!out.stdout.contains("snapshot-00001@8"), "{}", out.stdout);
    assert!(
        out.stderr.contains("snapshot-00001.azc has the weights of")
            && out
                .stderr
                .contains("champion-0001.azc; rated once, as the champion"),
        "{}",
        out.stderr
    );
    assert!(!out.stdout.contains("latest"), "{}", out.stdout);
    // In training order with the iterations, games and CPU time behind each network (the
    // run's metrics row of its last iteration, not the next one's), intervals given.
    let games = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
    let first_row: Vec<&str> = games.lines().nth(1).unwrap().split(',').collect();
    let header: Vec<&str> = games.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let behind_first = format!(
        "iteration 1 ({} games, {:.2} CPU-hours): champion-0001@8",
        first_row[col("total_games")],
        first_row[col("cpu_hours")].parse::<f64>().unwrap()
    );
    assert!(
        out.stdout
            .contains("iteration 0 (0 games): champion-0000@8")
            && out.stdout.contains(&behind_first),
        "{behind_first}\n{}",
        out.stdout
    );
    // With the run's other figures, not at the top of the run folder.
    assert!(!dir.join("ladder.png").exists());
    let png = std::fs::read(dir.join("plots/ladder.png")).expect("plots/ladder.png");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // A snapshot of the same iteration with other weights is another network: rated.
    let nets = dir.join("networks");
    std::fs::copy(
        nets.join("champion-0000.azc"),
        nets.join("snapshot-00001.azc"),
    )
    .unwrap();
    let out = snapshot_ladder(&dir, &["--sims", "2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("snapshot-00001@2"), "{}", out.stdout);
}

#[test]
fn snapshot_ladder_never_rates_a_network_of_an_uncommitted_iteration() {
    // Regression: a champion written by an iteration that never committed was rated.
    let dir = fresh_dir("arena_ladder_orphan");
    tiny_connect4_run(&dir);
    let nets = dir.join("networks");
    std::fs::copy(
        nets.join("champion-0001.azc"),
        nets.join("champion-0002.azc"),
    )
    .unwrap();
    std::fs::copy(
        nets.join("champion-0001.azc"),
        nets.join("snapshot-00002.azc"),
    )
    .unwrap();
    let out = snapshot_ladder(&dir, &["--sims", "4"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for name in ["champion-0002", "snapshot-00002"] {
        assert!(!out.stdout.contains(name), "{name} rated: {}", out.stdout);
        assert!(
            out.stderr.contains(&format!(
                "networks/{name}.azc is not in the run's committed state"
            )),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn snapshot_ladder_of_many_networks_plays_neighbours_and_anchors_not_a_round_robin() {
    // Regression: a full round robin over every network (~250: hours).
    let run = fresh_dir("arena_ladder_many");
    tiny_connect4_run(&run);
    // Twelve networks and no run state: taken in name order.
    let dir = fresh_dir("arena_ladder_many_nets");
    std::fs::create_dir_all(dir.join("networks")).unwrap();
    for k in 0..12 {
        std::fs::copy(
            run.join("networks/champion-0001.azc"),
            dir.join(format!("networks/champion-{k:04}.azc")),
        )
        .unwrap();
    }
    let out = snapshot_ladder(
        &dir,
        &[
            "--sims",
            "2",
            "--snapshot-neighbours",
            "1",
            "--snapshot-anchors",
            "3",
            "--threads",
            "2",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pairs: usize = out
        .stderr
        .split("playing ")
        .nth(1)
        .and_then(|s| s.split(" pairs").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(pairs < 13 * 12 / 2 / 2, "{pairs} pairs: {}", out.stderr);
    assert!(pairs >= 12, "{pairs}");
    let games: usize = out
        .stdout
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(games, 2 * pairs, "{}", out.stdout);
    assert!(
        out.stderr.contains("champion k is taken as iteration k"),
        "{}",
        out.stderr
    );
    // Every network is rated, with an interval.
    for k in 0..12 {
        assert!(
            out.stdout
                .contains(&format!("iteration {k}: champion-{k:04}@2 ")),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn run_networks_against_fixed_rungs_give_one_row_each_with_the_training_behind_it() {
    let dir = fresh_dir("arena_rungs");
    tiny_connect4_run_of(&dir, 3);
    let out_dir = fresh_dir("arena_rungs_out");
    let (json, md) = (out_dir.join("rungs.json"), out_dir.join("rungs.md"));
    let out = snapshot_ladder(
        &dir,
        &[
            "--sims",
            "4",
            "--snapshot-every",
            "2",
            "--ladder",
            "random",
            "rollout:8",
            "--out",
            json.to_str().unwrap(),
            "--ladder-out",
            md.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Champions 0–3 (the snapshots are their twins): every second one and the last.
    assert!(
        out.stderr
            .contains("--snapshot-every 2: 3 of the run's 4 networks"),
        "{}",
        out.stderr
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("12 games of connect4: 3 networks of ")
            && lines[0].contains("against 2 rungs, 2 games each"),
        "{}",
        out.stdout
    );
    let header: Vec<&str> = lines[2]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        header,
        [
            "network",
            "iteration",
            "self-play games",
            "CPU-hours",
            "random W-D-L",
            "random Elo (95%)",
            "rollout-8 W-D-L",
            "rollout-8 Elo (95%)"
        ],
        "{}",
        out.stdout
    );
    let mut last_games = None;
    for (row, (net, it)) in lines[3..6]
        .iter()
        .zip([("0000", 0), ("0002", 2), ("0003", 3)])
    {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[0], format!("champion-{net}@4"), "{row}");
        assert_eq!(cells[1], it.to_string(), "{row}");
        let games: u64 = cells[2].parse().unwrap();
        assert!(last_games.is_none_or(|g| games > g), "{}", out.stdout);
        last_games = Some(games);
        // W-D-L of each rung adds up to its games.
        let wdl: Vec<u32> = cells
            .iter()
            .filter(|c| c.matches('-').count() == 2 && !c.starts_with('['))
            .flat_map(|c| c.split('-').map(|n| n.parse::<u32>().unwrap()))
            .collect();
        assert_eq!(wdl.len(), 6, "{row}");
        assert_eq!(wdl[..3].iter().sum::<u32>(), 2, "{row}");
        assert_eq!(wdl[3..].iter().sum::<u32>(), 2, "{row}");
    }
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("champion-")).count(),
        3,
        "{}",
        out.stdout
    );
    // The JSON rows: the training behind each network from the run's metrics, CPU time
    // growing with it.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rungs"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let cpu: Vec<f64> = rows
        .iter()
        .map(|r| r["cpu_hours"].as_f64().unwrap())
        .collect();
    assert_eq!(cpu[0], 0.0);
    assert!(cpu.windows(2).all(|w| w[0] < w[1]), "{cpu:?}");
    for r in rows {
        for rung in r["rungs"].as_array().unwrap() {
            let n = |k: &str| rung[k].as_u64().unwrap();
            assert_eq!(n("wins") + n("draws") + n("losses"), 2, "{rung}");
        }
    }
    assert_eq!(v["match"]["games"].as_array().unwrap().len(), 12);
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.starts_with("## Rungs: the networks of "), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("| champion-"))
            .count(),
        3,
        "{text}"
    );
    assert!(text.contains("networks at 4 simulations") && text.contains(" --snapshot-every 2 "));
    let png = std::fs::read(dir.join("plots/rungs.png")).expect("plots/rungs.png");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(
        out.stdout
            .contains("plots/rungs.png: x = the trainer's CPU-hours"),
        "{}",
        out.stdout
    );
    // The snapshot ladder's pairing flags do not go with rungs; --snapshot-every needs a run.
    let run = dir.to_str().unwrap();
    for args in [
        vec![
            "--snapshots",
            run,
            "--ladder",
            "random",
            "--snapshot-anchors",
            "3",
        ],
        vec![
            "--snapshots",
            run,
            "--ladder",
            "random",
            "--snapshot-neighbours",
            "1",
        ],
        vec![
            "--snapshots",
            run,
            "--ladder",
            "random",
            "--players",
            "random",
        ],
        vec![
            "--snapshots",
            run,
            "--ladder",
            "random",
            "--snapshot-every",
            "0",
        ],
    ] {
        let mut all = vec!["arena", "--game", "connect4"];
        all.extend(&args);
        let out = alphazero(&all);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("game 1/"), "{args:?}: {}", out.stderr);
    }
    // Regression: clap waives `requires = "snapshots"` beside --players (which --snapshots
    // conflicts with), and these played a plain match.
    for args in [
        vec![
            "--players",
            "random",
            "--ladder",
            "random",
            "--snapshot-every",
            "2",
        ],
        vec![
            "--players",
            "random",
            "random",
            "--snapshot-neighbours",
            "1",
        ],
    ] {
        let mut all = vec!["arena", "--game", "connect4"];
        all.extend(&args);
        let out = alphazero(&all);
        assert_clean_error(&out, &format!("{args:?}"));
        assert!(
            out.stderr.contains("needs --snapshots RUN_DIR"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("game 1/"), "{args:?}: {}", out.stderr);
    }
}

/// Makes `dir` unwritable even for root (`chmod` alone does not stop root; `chattr +i`
/// does where the file system has it). Returns whether it worked.
fn make_read_only(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join(".probe");
    if std::fs::write(&probe, b"x").is_err() {
        return true;
    }
    let _ = std::fs::remove_file(&probe);
    let immutable = std::process::Command::new("chattr")
        .arg("+i")
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    immutable && std::fs::write(&probe, b"x").is_err()
}

fn make_writable(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::process::Command::new("chattr")
        .arg("-i")
        .arg(dir)
        .status();
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
}

#[test]
fn snapshot_ladder_on_a_read_only_run_directory_fails_before_any_game() {
    // Regression: every game was played before ladder.png failed to be written.
    let dir = fresh_dir("arena_ladder_read_only");
    tiny_connect4_run(&dir);
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).unwrap();
    if !make_read_only(&plots) {
        make_writable(&plots);
        eprintln!("skipped: this file system cannot make a directory read-only for this user");
        return;
    }
    let out = snapshot_ladder(&dir, &["--sims", "4"]);
    make_writable(&plots);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("ladder.png") && out.stderr.contains("cannot write into"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("game 1/"),
        "games were played: {}",
        out.stderr
    );
    assert!(!plots.join("ladder.png").exists());
}

#[test]
fn network_search_settings_are_applied_and_bad_ones_refused() {
    let dir = fresh_dir("arena_c_puct");
    tiny_connect4_run(&dir);
    let net = format!("net:{}:8", dir.join("networks/latest.azc").display());
    let base = [
        "arena",
        "--game",
        "connect4",
        "--players",
        &net,
        "random",
        "--games",
        "2",
    ];
    let mut args = base.to_vec();
    args.extend(["--c-puct", "1.5", "--leaves-per-batch", "1"]);
    let out = alphazero(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "search c_puct 1.5, FPU reduction 0.25, policy temperature 1, 1 leaf per network call"
        ),
        "{}",
        out.stderr
    );
    let out = alphazero(&base);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("c_puct AlphaZero c(N), FPU reduction 0.25, policy temperature 1, 8 leaves"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
    // A player's own settings lie over the match's flags.
    let own = format!("{net}{{option=policy_temperature=2,option=c_puct=3}}");
    let mut args = base.to_vec();
    args[4] = own.as_str();
    args.extend(["--c-puct", "1.5"]);
    let out = alphazero(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("search c_puct 3, FPU reduction 0.25, policy temperature 2, 8 leaves"),
        "{}",
        out.stderr
    );
    let bad = format!("{net}{{option=policy_temperature=0}}");
    args[4] = bad.as_str();
    let out = alphazero(&args);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("policy_temperature"), "{}", out.stderr);
    // Two players without randomness from the empty board: the same games again and again.
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        &net,
        "uniform:8",
        "--games",
        "4",
        "--openings",
        "none",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("warning: --openings none with only network / uniform players"),
        "{}",
        out.stderr
    );
    for bad in [
        ["--c-puct", "0"],
        ["--c-puct", "nan"],
        ["--c-puct", "1e-46"],
        ["--leaves-per-batch", "0"],
    ] {
        let mut args = base.to_vec();
        args.extend(bad);
        let out = alphazero(&args);
        assert_eq!(out.code, 2, "{bad:?}: {}", out.stderr);
        assert!(out.stderr.contains(bad[0]), "{bad:?}: {}", out.stderr);
    }
}

/// Regression: an `--out` / `--pgn` that cannot be written was found only after the
/// whole match had been played.
#[test]
fn unwritable_out_and_pgn_are_refused_before_the_match() {
    let dir = fresh_dir("arena_out");
    let missing = dir.join("no/such/folder/r.json");
    for flag in ["--out", "--pgn"] {
        for (path, needle) in [
            (missing.to_str().unwrap(), "does not exist"),
            (dir.to_str().unwrap(), "is a folder"),
        ] {
            // A million-playout rollout match would take hours: the refusal must come first.
            let out = alphazero(&[
                "arena",
                "--game",
                "connect4",
                "--players",
                "rollout:1000000",
                "random",
                "--games",
                "100",
                flag,
                path,
            ]);
            assert_clean_error(&out, path);
            assert!(out.stderr.contains(flag), "{flag} {path}: {}", out.stderr);
            assert!(out.stderr.contains(needle), "{flag} {path}: {}", out.stderr);
            assert!(!out.stdout.contains("game 1/"), "{}", out.stdout);
        }
    }
}

/// Regression: `--notation wxf` was accepted for Connect Four, and for a match that writes no
/// PGN, and did nothing. It is now refused before the match, naming the reason; so is one
/// file given for two outputs.
#[test]
fn wxf_notation_without_xiangqi_pgn_and_one_file_for_two_outputs_are_refused_before_the_match() {
    let dir = fresh_dir("arena_notation");
    let pgn = dir.join("games.pgn");
    let pgn = pgn.to_str().unwrap();
    let same = dir.join("same.md");
    let same = same.to_str().unwrap();
    for (game, extra, needle) in [
        (
            "connect4",
            vec!["--pgn", pgn],
            "WXF is a Xiangqi notation; connect4",
        ),
        ("xiangqi", vec![], "none is written"),
        // One file for two outputs (`--pgn x --ladder-out x`, `--out x --pgn x`):
        // the one written last replaced the other.
        (
            "xiangqi",
            vec!["--out", same, "--pgn", same],
            "--out and --pgn name one file",
        ),
    ] {
        let mut args = vec![
            "arena",
            "--game",
            game,
            "--players",
            "rollout:1000000",
            "random",
            "--games",
            "100",
            "--notation",
            "wxf",
        ];
        args.extend(extra);
        let out = alphazero(&args);
        assert_clean_error(&out, "--notation wxf");
        assert!(out.stderr.contains(needle), "{game}: {}", out.stderr);
        assert!(!out.stdout.contains("game 1/"), "{}", out.stdout);
    }
}

#[test]
fn arena_into_a_closed_pipe_does_not_panic() {
    // Regression: printing the cross table into a closed pipe panicked (exit 101). The arena
    // keeps SIGPIPE ignored (its engines are child processes), so it exits with 141 itself.
    // Exit 0 means the write found the pipe still open: a child spawned at the same moment by
    // another test thread can hold the read end for an instant (fork before exec). Retried;
    // a panic (101) or any other code fails at once.
    for attempt in 1..=3 {
        let (code, stderr) = common::alphazero_stdout_closed_early(
            &[
                "arena",
                "--game",
                "connect4",
                "--players",
                "random",
                "random",
                "--games",
                "2",
            ],
            0,
        );
        common::assert_quiet_on_closed_stdout(code, &stderr, "arena | head");
        if code == 0 && attempt < 3 {
            continue;
        }
        assert_eq!(code, 141, "{stderr}");
        break;
    }
}

#[test]
fn a_count_too_large_for_a_player_says_too_large() {
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        "uniform:99999999999",
        "random",
    ]);
    assert_clean_error(&out, "uniform:99999999999");
    assert!(out.stderr.contains("too large"), "{}", out.stderr);
    assert!(!out.stderr.contains("positive"), "{}", out.stderr);
}

#[test]
fn missing_or_unreadable_files_print_the_os_error_once() {
    let dir = fresh_dir("os_error_once");
    let testdata = dir.join("testdata");
    std::fs::create_dir_all(&testdata).unwrap();
    std::fs::write(testdata.join("Test_L1_R1"), b"\xff\xfe 1\n").unwrap();
    let cases: [(Vec<&str>, &str); 3] = [
        (
            vec![
                "arena",
                "--game",
                "connect4",
                "--players",
                "net:/nonexistent/net.azc",
                "random",
            ],
            "os error 2",
        ),
        (
            vec![
                "play",
                "--game",
                "connect4",
                "--model",
                dir.to_str().unwrap(),
            ],
            // A folder is a run's folder (its champion), not "Is a directory" (os error 21).
            "holds no champion network",
        ),
        (
            vec![
                "eval",
                "connect4",
                "--testdata",
                testdata.to_str().unwrap(),
                "--sets",
                "Test_L1_R1",
            ],
            "valid UTF-8",
        ),
    ];
    for (args, cause) in cases {
        let out = alphazero(&args);
        assert_clean_error(&out, &format!("{args:?}"));
        assert_eq!(
            out.stderr.matches(cause).count(),
            1,
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn sprt_rejects_non_finite_values_and_names_the_16_game_minimum() {
    for spec in [
        "--sprt=0,inf",
        "--sprt=-1e308,1e308",
        "--sprt=0,35,inf,0.05",
        "--sprt=0,35,0.05,NaN",
    ] {
        let out = alphazero(&[
            "arena",
            "--game",
            "connect4",
            "--players",
            "random",
            "random",
            "--games",
            "2",
            spec,
        ]);
        assert_clean_error(&out, spec);
        assert!(out.stderr.contains("--sprt"), "{spec}: {}", out.stderr);
    }
    let help = alphazero(&["arena", "--help"]);
    assert!(help.stdout.contains("16 games"), "{}", help.stdout);

    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        "random",
        "random",
        "--games",
        "4",
        "--sprt=0,35,0.49,0.49",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = out.stdout.lines().find(|l| l.starts_with("SPRT")).unwrap();
    assert!(line.contains("only after 16 games, 4 played"), "{line}");
}

/// A shell script that appends everything the arena sends to `log` and passes it on to our
/// own engine (`alphazero ARGS…`): the stand-in for an external engine whose input we check.
fn logging_engine(dir: &std::path::Path, log: &str, args: &str) -> String {
    let script = dir.join(format!("{log}.sh"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntee -a '{}' | exec '{}' {args}\n",
            dir.join(log).display(),
            env!("CARGO_BIN_EXE_alphazero")
        ),
    )
    .unwrap();
    // Run through `sh` (not executed itself: a script just written can be "text file busy"
    // while another test thread forks), so the engine's default name is `sh`.
    format!("sh {}", script.display())
}

/// The lines of a logged engine input.
fn logged(dir: &std::path::Path, log: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(log))
        .unwrap_or_else(|e| panic!("{log}: {e}"))
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn gomoku_ladder_sends_each_rung_its_info_lines_and_writes_the_table() {
    let dir = fresh_dir("arena_ladder_gomocup");
    let depth = logging_engine(&dir, "depth.log", "gomocup --fixed-sims 4");
    let nodes = logging_engine(&dir, "nodes.log", "gomocup --fixed-sims 4");
    let md = dir.join("ladder.md");
    let rung1 = format!("gomocup:{depth}{{info=MAX_DEPTH 2}}");
    let rung2 = format!(
        "gomocup:{nodes} {{info=MAX_NODE 100, info=SHOW_DETAIL 0, movetime=700, name=n100}}"
    );
    let out = alphazero(&[
        "arena",
        "--game",
        "gomoku",
        "--size",
        "9",
        "--players",
        "heuristic:0",
        "--ladder",
        &rung1,
        &rung2,
        "--games",
        "4",
        "--ladder-out",
        md.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("8 games of gomoku: heuristic-0 against 2 rungs, 4 games each"),
        "{}",
        out.stdout
    );
    let table: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Ladder of heuristic-0"))
        .collect();
    assert!(
        table[1].starts_with("rung") && table[1].contains("Elo (95%)"),
        "{}",
        out.stdout
    );
    assert!(table[2].starts_with("sh (MAX_DEPTH 2) "), "{}", out.stdout);
    assert!(table[3].starts_with("n100 "), "{}", out.stdout);
    for row in &table[2..4] {
        let cells: Vec<&str> = row.split_whitespace().collect();
        // rung words…, games, W-D-L, score, Elo [lo, hi], failures
        let games_at = cells.len() - 7;
        assert_eq!(cells[games_at], "4", "{row}");
        let wdl: u32 = cells[games_at + 1]
            .split('-')
            .map(|x| x.parse::<u32>().unwrap())
            .sum();
        assert_eq!(wdl, 4, "{row}");
        assert_eq!(cells[cells.len() - 1], "0", "no failures: {row}");
    }
    // Every START is followed by the rule and that rung's INFO lines, and only that rung's.
    let d = logged(&dir, "depth.log");
    let starts: Vec<usize> = (0..d.len())
        .filter(|&i| d[i].starts_with("START 9"))
        .collect();
    // The preflight's game plus one per game (a brain is restarted per game).
    assert!(starts.len() >= 2, "{d:?}");
    for &i in &starts {
        assert_eq!(
            d[i + 1..i + 3],
            ["INFO rule 0", "INFO MAX_DEPTH 2"],
            "{d:?}"
        );
    }
    assert!(!d.iter().any(|l| l.contains("MAX_NODE")), "{d:?}");
    let n = logged(&dir, "nodes.log");
    let i = n.iter().position(|l| l.starts_with("START 9")).unwrap();
    assert_eq!(
        n[i + 1..i + 4],
        ["INFO rule 0", "INFO MAX_NODE 100", "INFO SHOW_DETAIL 0"],
        "{n:?}"
    );
    assert!(n.iter().any(|l| l == "INFO timeout_turn 700"), "{n:?}");
    assert!(!n.iter().any(|l| l == "INFO timeout_turn 1000"), "{n:?}");
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.starts_with("## Ladder: heuristic-0 (gomoku)"),
        "{text}"
    );
    assert!(text.contains("| sh (MAX_DEPTH 2) | 4 | "), "{text}");
    assert!(text.contains("| n100 | 4 | "), "{text}");
    // The command line, quoted for a POSIX shell (shell-words): plain words as they are, a
    // player spec with blanks or `=` in single quotes.
    assert!(
        text.contains(" arena --game gomoku --size 9 --players heuristic:0 --ladder '"),
        "{text}"
    );
    assert!(text.contains(&format!(" '{rung2}' --games 4 ")), "{text}");
}

#[test]
fn xiangqi_ladder_sends_go_depth_and_options_per_rung() {
    let dir = fresh_dir("arena_ladder_ucci");
    let d1 = logging_engine(&dir, "d1.log", "ucci --fixed-sims 4");
    let d2 = logging_engine(&dir, "d2.log", "ucci --fixed-sims 4");
    let json = dir.join("ladder.json");
    let out = alphazero(&[
        "arena",
        "--game",
        "xiangqi",
        "--players",
        "alphabeta:1",
        "--ladder",
        &format!("ucci:{d1}{{depth=1,option=usebook=false}}"),
        &format!("ucci:{d2}{{depth=2,nodes=50}}"),
        "--games",
        "2",
        "--max-plies",
        "16",
        "--out",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("sh (depth 1, usebook=false)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("sh (depth 2, nodes 50)"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("lost by a player failure"),
        "{}",
        out.stdout
    );
    let a = logged(&dir, "d1.log");
    let hello = a.iter().position(|l| l == "ucci").unwrap();
    assert!(
        a[hello..].iter().any(|l| l == "setoption usebook false"),
        "{a:?}"
    );
    let gos: Vec<&String> = a.iter().filter(|l| l.starts_with("go")).collect();
    assert!(gos.len() >= 2, "{a:?}");
    assert!(gos.iter().all(|l| *l == "go depth 1"), "{a:?}");
    // UCCI takes one limit: the depth wins over the nodes.
    let b = logged(&dir, "d2.log");
    assert!(
        b.iter()
            .filter(|l| l.starts_with("go"))
            .all(|l| l == "go depth 2"),
        "{b:?}"
    );
    assert!(!b.iter().any(|l| l.contains("usebook")), "{b:?}");
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(
        text.contains("\"ladder\"") && text.contains("\"rung\""),
        "{text}"
    );
}

#[test]
fn bad_ladders_and_settings_are_one_error_line_naming_the_input() {
    let g = |game: &'static str, players: &[&'static str], rest: &[&'static str]| {
        let mut a = vec!["arena", "--game", game, "--players"];
        a.extend(players);
        a.extend(rest);
        a
    };
    for (args, needle) in [
        (
            g("gomoku", &["gomocup:x{depth=2}", "random"], &[]),
            "info=MAX_DEPTH",
        ),
        (
            g("gomoku", &["gomocup:x{info=MAX_DEPTH 2", "random"], &[]),
            "not closed",
        ),
        (
            g("gomoku", &["random", "gomocup:x{dpeth=2}"], &[]),
            "\"dpeth\"",
        ),
        (
            g("xiangqi", &["ucci:x{info=A}", "random"], &[]),
            "setting info",
        ),
        (
            g("xiangqi", &["ucci:x{depth=0}", "random"], &[]),
            "depth=\"0\"",
        ),
        (
            g("xiangqi", &["ucci:x{option=usebook}", "random"], &[]),
            "NAME=VALUE",
        ),
        (
            g("connect4", &["uniform:8{nodes=5}", "random"], &[]),
            "uniform:N",
        ),
        (
            g("connect4", &["random", "random"], &["--ladder", "random"]),
            "exactly one --players",
        ),
        (
            g("connect4", &["random"], &["--ladder", "rollout:5{depth=1}"]),
            "rollout:5{depth=1}",
        ),
        (
            g(
                "gomoku",
                &["random"],
                &["--ladder", "gomocup:/nonexistent/brain{info=MAX_NODE 100}"],
            ),
            "cannot play, so the match was not started",
        ),
    ] {
        let out = alphazero(&args);
        assert_clean_error(&out, &format!("{args:?}"));
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("game 1/"), "{args:?}: {}", out.stderr);
    }
    // Flags that do not go with --ladder are refused by the parser.
    for extra in [
        vec!["--gauntlet"],
        vec!["--sprt", "0,10"],
        vec!["--anchor", "random"],
    ] {
        let mut args = g("connect4", &["random"], &["--ladder", "random"]);
        args.extend(extra.iter());
        let out = alphazero(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    }
    let out = alphazero(&g(
        "connect4",
        &["random", "random"],
        &["--ladder-out", "x.md"],
    ));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--ladder"), "{}", out.stderr);
}

#[test]
fn gomoku_plays_an_opening_file_in_order_and_names_a_bad_line() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gomoku/openings/balanced-15x15-freestyle.txt"
    );
    let dir = fresh_dir("arena_opening_file");
    let sgf = dir.join("games.sgf");
    let out = alphazero(&[
        "arena",
        "--game",
        "gomoku",
        "--players",
        "random",
        "heuristic:0",
        "--games",
        "2",
        "--openings",
        file,
        "--sgf",
        sgf.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("2 games of gomoku"), "{}", out.stdout);
    let time = out
        .stdout
        .lines()
        .find(|l| l.starts_with("time a move: "))
        .unwrap_or_else(|| panic!("no time line: {}", out.stdout));
    assert!(
        time.contains("random ") && time.contains("heuristic-0 "),
        "{time}"
    );
    // The file's first opening (2,-2, -2,0, -2,-1: Gomocup 9,5 5,7 5,6; SGF rows counted
    // from the bottom as the board is drawn), in both games.
    let games = std::fs::read_to_string(&sgf).unwrap();
    let opening = ";B[jj];W[fh];B[fi]C[end of opening]";
    assert_eq!(games.matches(opening).count(), 2, "{games}");

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "0,0, 1,1\n# a comment\n0,0, 9,0\n").unwrap();
    let out = alphazero(&[
        "arena",
        "--game",
        "gomoku",
        "--players",
        "random",
        "random",
        "--openings",
        bad.to_str().unwrap(),
    ]);
    assert_clean_error(&out, "an opening off the board");
    assert!(
        out.stderr.contains("line 3") && out.stderr.contains("off the 15x15 board"),
        "{}",
        out.stderr
    );
    let out = alphazero(&[
        "arena",
        "--game",
        "connect4",
        "--players",
        "random",
        "random",
        "--openings",
        file,
    ]);
    assert_clean_error(&out, "an opening file for connect4");
    assert!(out.stderr.contains("Gomoku"), "{}", out.stderr);
}
