//! The layouts of a convolutional policy head (`Encode::policy_planes`): every action has its
//! own point of the `[K, H, W]` maps, at the square the planes show its move starting from
//! (Xiangqi) or landing on (Gomoku), and the board symmetries move those points as they move
//! the input planes.

use std::collections::HashSet;

use alphazero_game::Game;
use alphazero_registry::games::{Connect4, Connect4Config, Gomoku, GomokuConfig, Rule, Xiangqi};
use alphazero_registry::{Encode, PolicyPlanes};

/// Checks that `p` gives every action of `g` its own position inside `[K, H, W]`.
fn check_distinct<G: Game>(g: &G, p: &PolicyPlanes) {
    let (h, w) = g.board_shape();
    assert_eq!(p.index.len(), g.num_actions());
    let mut seen = HashSet::new();
    for (a, &i) in p.index.iter().enumerate() {
        assert!(
            (i as usize) < p.planes * h * w,
            "action {a}: {i} out of range"
        );
        assert!(seen.insert(i), "action {a} shares position {i}");
    }
}

/// The `(plane, y, x)` of flat position `i` in `[K, H, W]`.
fn split(i: u32, h: usize, w: usize) -> (usize, usize, usize) {
    let i = i as usize;
    (i / (h * w), i % (h * w) / w, i % w)
}

#[test]
fn gomoku_actions_read_their_own_point_of_one_plane() {
    for size in [5, 9, 15, 20] {
        let config = GomokuConfig::new(size, Rule::Renju).unwrap();
        let g = Gomoku::new(&config);
        let p = Gomoku::policy_planes(&config).expect("gomoku has a conv layout");
        assert_eq!(p.planes, 1);
        check_distinct(&g, &p);
        for a in 0..g.num_actions() {
            let mv = g.action_to_move(a).unwrap();
            let n = usize::from(size);
            let (_, y, x) = split(p.index[a], n, n);
            assert_eq!((x, y), (usize::from(mv.x), usize::from(mv.y)), "action {a}");
        }
    }
}

#[test]
fn xiangqi_actions_read_their_from_square_in_the_plane_of_their_move_type() {
    let config = Default::default();
    let g = Xiangqi::new(&config);
    let p = Xiangqi::policy_planes(&config).expect("xiangqi has a conv layout");
    assert_eq!(p.planes, 50);
    check_distinct(&g, &p);
    let mut planes_of_shape = std::collections::HashMap::new();
    for a in 0..g.num_actions() {
        let mv = g.action_to_move(a).unwrap();
        let (plane, y, x) = split(p.index[a], 10, 9);
        // The from-square, in the planes' frame (Red to move: rank = row, file = column).
        assert_eq!(
            (y, x),
            (usize::from(mv.from.rank()), usize::from(mv.from.file()))
        );
        // One plane per move shape (the file and rank steps), and one shape per plane.
        let shape = (
            i32::from(mv.to.file()) - i32::from(mv.from.file()),
            i32::from(mv.to.rank()) - i32::from(mv.from.rank()),
        );
        let before = planes_of_shape.insert(shape, plane);
        assert!(before.is_none() || before == Some(plane), "{shape:?}");
    }
    let planes: HashSet<usize> = planes_of_shape.values().copied().collect();
    assert_eq!(planes.len(), planes_of_shape.len(), "one shape a plane");
    assert_eq!(planes.len(), 50, "every plane is used");
}

#[test]
fn xiangqi_black_moves_read_the_planes_turned_as_the_input_is() {
    // Black to move: the planes show the board turned 180°, and so do the actions; a move's
    // logit is read at its from-square as the planes show it.
    let config = Default::default();
    let mut g = Xiangqi::new(&config);
    g.play(g.parse_move("h2e2").unwrap()).unwrap();
    let p = Xiangqi::policy_planes(&config).unwrap();
    let mut planes = vec![0.0; Xiangqi::input_len(&config)];
    g.encode(0, &mut planes);
    for mv in g.legal_moves_vec() {
        let a = g.move_to_action(mv);
        let (_, y, x) = split(p.index[a], 10, 9);
        // Plane 0..7 are the side to move's pieces: one stands at the read point.
        let own = (0..7).any(|k| planes[k * 90 + y * 9 + x] == 1.0);
        assert!(own, "{mv}: no own piece at ({y}, {x})");
    }
}

#[test]
fn connect4_has_no_conv_layout() {
    assert!(Connect4::policy_planes(&Connect4Config).is_none());
}
