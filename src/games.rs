//! Choosing a game at run time: command-line arguments → a validated [`GameSpec`], and the
//! [`with_game!`] macro that runs generic code for the chosen game type.
use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::{Game, History};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use anyhow::{bail, Context, Result};

/// The games this build knows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameName {
    /// Gomoku / Renju on an N×N board (5–20).
    Gomoku,
    /// Xiangqi (Chinese chess).
    Xiangqi,
    /// Connect Four, 7×6.
    Connect4,
}

impl GameName {
    /// The name used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            GameName::Gomoku => Gomoku::NAME,
            GameName::Xiangqi => Xiangqi::NAME,
            GameName::Connect4 => Connect4::NAME,
        }
    }
}

/// Game selection shared by every subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct GameArgs {
    /// Which game.
    #[arg(long, value_enum)]
    pub game: GameName,
    /// Gomoku board size, 5–20 (default 15).
    #[arg(long)]
    pub size: Option<u8>,
    /// Gomoku rule: freestyle (five or more; the default), standard (exactly five) or renju.
    #[arg(long)]
    pub rule: Option<String>,
}

/// A validated game choice with its rules configuration.
#[derive(Clone, Debug)]
pub enum GameSpec {
    /// Gomoku with size and rule.
    Gomoku(GomokuConfig),
    /// Xiangqi.
    Xiangqi(XiangqiConfig),
    /// Connect Four.
    Connect4(Connect4Config),
}

impl GameArgs {
    /// Validates the arguments into a [`GameSpec`]; `--size` and `--rule` are refused for
    /// games other than Gomoku.
    pub fn spec(&self) -> Result<GameSpec> {
        if self.game != GameName::Gomoku && (self.size.is_some() || self.rule.is_some()) {
            anyhow::bail!(
                "--size and --rule apply to gomoku only, not {}",
                self.game.as_str()
            );
        }
        Ok(match self.game {
            GameName::Gomoku => {
                let rule: Rule = self.rule.as_deref().unwrap_or("freestyle").parse()?;
                GameSpec::Gomoku(GomokuConfig::new(self.size.unwrap_or(15), rule)?)
            }
            GameName::Xiangqi => GameSpec::Xiangqi(XiangqiConfig::default()),
            GameName::Connect4 => GameSpec::Connect4(Connect4Config),
        })
    }
}

/// Runs `$body` with `$G` bound to the chosen game type and `$cfg` to its config.
#[macro_export]
macro_rules! with_game {
    ($spec:expr, $G:ident, $cfg:ident => $body:expr) => {
        match $spec {
            $crate::games::GameSpec::Gomoku($cfg) => {
                type $G = alphazero_gomoku::Gomoku;
                $body
            }
            $crate::games::GameSpec::Xiangqi($cfg) => {
                type $G = alphazero_xiangqi::Xiangqi;
                $body
            }
            $crate::games::GameSpec::Connect4($cfg) => {
                type $G = alphazero_connect4::Connect4;
                $body
            }
        }
    };
}

/// Games whose positions can be given as text on the command line.
pub trait PositionText: Game {
    /// Parses a position: a FEN where the game has one (Xiangqi), otherwise a list of moves
    /// from the start position in the game's notation, separated by spaces or commas (Connect
    /// Four also accepts its digit string `4453`). Returns the game with its history.
    fn parse_position(config: &Self::Config, text: &str) -> Result<History<Self>>;
}

fn play_move_list<G: Game>(start: G, tokens: &[&str]) -> Result<History<G>> {
    let mut h = History::new(start);
    for (i, t) in tokens.iter().enumerate() {
        let mv = h
            .current()
            .parse_move(t)
            .with_context(|| format!("move {} of the move list", i + 1))?;
        h.play(mv)
            .with_context(|| format!("move {} of the move list", i + 1))?;
    }
    Ok(h)
}

fn split_moves(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|t| !t.is_empty())
        .collect()
}

/// Games without a FEN: a text with '/' was meant as one, which they do not read.
fn refuse_fen<G: Game>(text: &str) -> Result<()> {
    if text.contains('/') {
        bail!(
            "{text:?} looks like a FEN, but {} positions are given as a move list from the \
             start (e.g. \"{}\")",
            G::NAME,
            if G::NAME == "connect4" {
                "4 4 3"
            } else {
                "h8 h9 i8"
            }
        );
    }
    Ok(())
}

impl PositionText for Gomoku {
    fn parse_position(config: &GomokuConfig, text: &str) -> Result<History<Self>> {
        refuse_fen::<Self>(text)?;
        // Gomocup moves contain a comma ("7,7"), so only whitespace/';' separate moves.
        play_move_list(Gomoku::new(config), &split_moves(text))
    }
}

impl PositionText for Connect4 {
    fn parse_position(config: &Connect4Config, text: &str) -> Result<History<Self>> {
        refuse_fen::<Self>(text)?;
        let t = text.trim();
        let tokens: Vec<&str> = if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
            (0..t.len()).map(|i| &t[i..i + 1]).collect()
        } else {
            t.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|s| !s.is_empty())
                .collect()
        };
        play_move_list(Connect4::new(config), &tokens)
    }
}

impl PositionText for Xiangqi {
    fn parse_position(config: &XiangqiConfig, text: &str) -> Result<History<Self>> {
        let t = text.trim();
        // "FEN [moves m1 m2 ...]", "startpos [moves ...]", or a bare move list.
        let (fen_part, moves_part) = match t.find(" moves ") {
            Some(i) => (&t[..i], &t[i + 7..]),
            None if t.starts_with("moves ") => ("startpos", &t[6..]),
            None => (t, ""),
        };
        let fen_part = fen_part.trim();
        let start = if fen_part.is_empty() || fen_part == "startpos" {
            Xiangqi::new(config)
        } else if fen_part.contains('/') {
            Xiangqi::from_fen(fen_part, *config)?
        } else {
            // A bare move list from the start position. When even its first word is no move,
            // the text was most likely meant as a FEN: say both readings failed.
            return play_move_list(Xiangqi::new(config), &split_moves(t)).map_err(|e| {
                let first = split_moves(t).first().copied().unwrap_or_default();
                if Xiangqi::new(config).parse_move(first).is_err() {
                    e.context(format!(
                        "{t:?} is neither a FEN (ranks separated by '/', e.g. \
                         rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w) nor a \
                         move list from the start position"
                    ))
                } else {
                    e
                }
            });
        };
        play_move_list(start, &split_moves(moves_part))
    }
}

/// Fails with a clear message when `depth` is unreasonable for perft.
pub fn check_depth(depth: u32) -> Result<()> {
    if depth == 0 || depth > 12 {
        bail!("--depth must be between 1 and 12, got {depth}");
    }
    Ok(())
}
