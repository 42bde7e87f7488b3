"""alphazero-rs from Python: Gomoku, Xiangqi and Connect Four, the AlphaZero search with the
shipped or a trained network, self-play records as NumPy arrays, ONNX export.

Moves are text in the game's notation (Gomoku ``h8``, Xiangqi ICCS ``h2e2``, Connect Four the
column ``1``-``7``). Sides are 0 (the first player: Black in Gomoku, Red in Xiangqi) and 1.
Values and outcomes are from the side to move. Errors of the engine are raised with its
message: ``ValueError`` for a bad spec, move, position or argument, ``OSError`` when a file
cannot be read or written, ``RuntimeError`` when an evaluation fails.
"""

import os
from typing import Dict, List, Literal, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
"""The package's version (the workspace's)."""

GAMES: List[str]
"""The games this build knows: ``["gomoku", "xiangqi", "connect4"]``."""

PathLike = Union[str, os.PathLike]
Outcome = Literal["win", "loss", "draw"]

class Game:
    """A game in progress: the position and the moves that led to it.

    ``spec`` is a game of the registry: ``"gomoku:15:renju"`` (15×15 under the renju rule),
    ``"gomoku:15"`` (freestyle), ``"gomoku"`` (15×15 freestyle), ``"xiangqi"``, ``"connect4"``.
    ``position`` is text as the command line's ``--position`` takes it: a FEN where the game
    has one (Xiangqi, optionally followed by ``moves …``), otherwise a move list from the start
    (``"h8 h9 i8"``, Connect Four ``"4 4 3"``). Raises ``ValueError`` when either does not read.
    """

    def __init__(self, spec: str, position: Optional[str] = None) -> None: ...
    @property
    def spec(self) -> str:
        """The game and rules in the spec's long form (``"gomoku:15:renju"``)."""
    @property
    def side_to_move(self) -> int:
        """0 for the first player (Black, Red), 1 for the second."""
    @property
    def ply(self) -> int:
        """Plies played since the rules' start position."""
    def legal_moves(self) -> List[str]:
        """Every legal move here; empty when the game is over."""
    def play(self, move: str) -> None:
        """Plays ``move``; ``ValueError`` with the engine's message when it does not parse or
        is illegal (the game is then unchanged)."""
    def undo(self) -> Optional[str]:
        """Takes back the last move and returns it; ``None`` at the start."""
    @property
    def outcome(self) -> Optional[Outcome]:
        """The result from the side to move once the game is over (repetition rules
        included): after a winning move, ``"loss"``; ``None`` while it goes on."""
    @property
    def winner(self) -> Optional[int]:
        """0 or 1 when a side has won; ``None`` for a draw or a game that goes on."""
    @property
    def is_over(self) -> bool:
        """Whether the game is over."""
    @property
    def fen(self) -> Optional[str]:
        """The position's FEN where the game has one (Xiangqi); ``None`` otherwise."""
    @property
    def moves(self) -> List[str]:
        """The moves played since this game's start position."""
    @property
    def num_actions(self) -> int:
        """The size ``A`` of the action space (Gomoku N², Xiangqi 2086, Connect Four 7)."""
    def move_to_action(self, move: str) -> int:
        """The action index of a legal move (Xiangqi's indices are seen from the side to
        move); ``ValueError`` for a move that does not parse or is not legal."""
    def action_to_move(self, action: int) -> Optional[str]:
        """The move of an action index here (legal or not), ``None`` for an index that names
        no move; ``ValueError`` outside ``0 <= action < num_actions``."""
    @property
    def num_symmetries(self) -> int:
        """Board symmetries including the identity 0: 8 for Gomoku, 2 for Xiangqi and Connect
        Four (the left-right mirror)."""
    def transform(self, sym: int) -> "Game":
        """The game with the board moved by symmetry ``sym``, its history included."""
    def transform_action(self, sym: int, action: int) -> int:
        """The index in ``transform(sym)`` of the move with action index ``action`` here."""
    @property
    def planes_shape(self) -> Tuple[int, int, int]:
        """``(C, H, W)`` of ``planes()``."""
    def planes(self) -> npt.NDArray[np.float32]:
        """The network's input planes ``[C, H, W]`` of the current position, from the side to
        move (the trainer's and the search's encoding)."""
    def copy(self) -> "Game":
        """A copy."""
    def __copy__(self) -> "Game": ...
    def __deepcopy__(self, memo: object) -> "Game": ...

class Network:
    """A network checkpoint (``.azc``) for the game it was trained for, or for ``game`` (a
    spec of the same game with the network's shapes, e.g. a renju board for a freestyle
    network, or any board of its game for a size-independent network, whose ``predict``,
    ``export_onnx`` and search then take that board's shapes). ``OSError`` when the file cannot be read, ``ValueError`` when it is no
    checkpoint or does not fit ``game``."""

    def __init__(
        self, path: PathLike, game: Optional[str] = None, *, device: str = "cpu"
    ) -> None:
        """``device``: where the search's evaluator runs, as ``--device`` takes it (``cpu``;
        ``cuda[:N]`` / ``wgpu[:N]`` in a package built with that feature; ``predict`` runs
        on the CPU). ``ValueError`` for a device this build or machine lacks."""
    @staticmethod
    def shipped(spec: str, *, device: str = "cpu") -> Optional["Network"]:
        """The shipped network (``models/``, or ``$ALPHAZERO_MODELS``) for ``spec``; a Gomoku
        renju or standard board takes the freestyle network of its size, a board without a
        file of its own a size-independent network of another board, laid out for this one.
        ``None`` if none."""
    @property
    def spec(self) -> str:
        """The game spec the network searches."""
    @property
    def path(self) -> os.PathLike:
        """The checkpoint file."""
    @property
    def input_shape(self) -> Tuple[int, int, int]:
        """``(C, H, W)`` of the input planes."""
    @property
    def num_actions(self) -> int:
        """The size ``A`` of the policy output."""
    @property
    def size(self) -> Tuple[int, int]:
        """``(residual blocks, channels)``."""
    @property
    def training_step(self) -> int:
        """The optimizer steps it was trained for."""
    def predict(
        self, planes: npt.NDArray[np.float32]
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Runs the network (the search's CPU inference, batch norm folded, GIL released) on
        float32 planes ``[B, C, H, W]`` or one position ``[C, H, W]``: ``(policy_logits,
        values)``, ``[B, A]`` unnormalised logits over the whole action space and ``[B]``
        values in [-1, 1] from each position's side to move (``[A]`` and ``[1]`` for one
        position). ``ValueError`` for another shape."""
    def export_onnx(self, path: PathLike) -> None:
        """Writes the network as an ONNX model (as ``alphazero export MODEL --out F.onnx``):
        input ``planes`` ``[batch, C, H, W]``, outputs ``policy`` ``[batch, A]`` (logits)
        and ``value`` ``[batch]``, batch norm folded, game and shapes in its metadata."""

class Evaluator:
    """What the programs play with: a fast Mixnet evaluator file (``.azm``, distilled by
    ``alphazero distill``; a Gomoku one evaluates any board and rule) or a network checkpoint
    (``.azc``, or a training run's folder), for the game it was made for or for ``game``.
    ``OSError`` when the file cannot be read, ``ValueError`` when it is neither kind of file
    or does not fit ``game``."""

    def __init__(
        self, path: PathLike, game: Optional[str] = None, *, device: str = "cpu"
    ) -> None:
        """``device`` as for ``Network``."""
    @staticmethod
    def shipped(spec: str, *, device: str = "cpu") -> Optional["Evaluator"]:
        """What ``play``, ``analyze``, ``serve`` and the engines use for ``spec`` without a
        model: the fast evaluator shipped for the board's own rule (``models/*.azm``), else
        the network ``Network.shipped`` finds. ``None`` if none."""
    @property
    def spec(self) -> str:
        """The game spec it evaluates."""
    @property
    def path(self) -> os.PathLike:
        """The file."""

class SearchResult:
    """What ``search`` returns."""

    move: Optional[str]
    """The move to play (the most visited, or a proven win); ``None`` when the game is over."""
    action: Optional[int]
    """Its action index."""
    visits: Dict[str, float]
    """The root's visit distribution over every legal move (sums to 1)."""
    policy: npt.NDArray[np.float32]
    """The same over the whole action space, ``[A]`` (π as self-play records it)."""
    value: float
    """The root value in [-1, 1] from the side to move."""
    pv: List[str]
    """The principal variation, the best move first."""
    simulations: int
    """Simulations done."""
    proven: Optional[Outcome]
    """The proven result from the side to move when the solver or tactics decided it."""

def search(
    game: Game,
    network: Union[Network, Evaluator, None] = None,
    simulations: Optional[int] = None,
    time_ms: Optional[int] = None,
    seed: int = 0,
) -> SearchResult:
    """Searches ``game``'s position with the game's play search (the preset ``play``,
    ``analyze``, ``serve`` and the engines use) and ``network`` (a ``Network`` or an
    ``Evaluator``; ``None``: the uniform evaluator). Budget: ``simulations`` (800 when neither is given, at most 10,000,000) or
    ``time_ms`` of wall clock (at most a day), whichever ends first. The GIL is released
    while it searches; Ctrl-C ends it with ``KeyboardInterrupt``. ``ValueError`` when the
    network does not fit the game or a budget is 0 or too large."""

class RecordedGame:
    """One game of ``Records.games``."""

    id: int
    """The game's id in its run."""
    start: str
    """The start position as recorded (``""``: the rules' start position)."""
    moves: List[str]
    """Every move from the start: a restarted game's prefix, then its own plies (fast
    playout-cap moves included)."""
    prefix: int
    """How many of ``moves`` are a restarted game's prefix."""
    result: int
    """+1 the first player won, 0 a draw, -1 the second player won."""
    resigned: bool
    """The game ended by resignation."""
    truncated: bool
    """The game was cut off at the ply limit (no game result: z is 0)."""

class Records:
    """Self-play training positions; row ``i`` of every array is one position searched with
    a full search, in the order of the files and their games."""

    spec: str
    """The records' game spec."""
    planes: npt.NDArray[np.float32]
    """Input planes ``[N, C, H, W]`` from each position's side to move."""
    pi: npt.NDArray[np.float32]
    """The search policy π ``[N, A]`` (rows sum to 1 up to 16-bit quantisation)."""
    z: npt.NDArray[np.float32]
    """The game result ``[N]`` from each position's side to move: +1, 0, -1."""
    root_value: npt.NDArray[np.float32]
    """The search's root value ``[N]`` from the side to move."""
    action: npt.NDArray[np.int64]
    """The action index of the move played from each position ``[N]``."""
    moves: List[str]
    """The move played from each position."""
    side_to_move: npt.NDArray[np.int8]
    """0 or 1 ``[N]``."""
    ply: npt.NDArray[np.int64]
    """The ply of each position in its game ``[N]`` (0 = the start)."""
    game_id: npt.NDArray[np.int64]
    """The id of each position's game ``[N]``."""
    games: List[RecordedGame]
    """The games of the files, in order."""
    def __len__(self) -> int:
        """``N``."""

def load_records(path: PathLike) -> Records:
    """Reads self-play records (one ``.azr`` file, a run folder or a folder of ``.azr``
    files, in name order) as the trainer's inputs and targets: every game replayed, each
    fully searched position a row. The GIL is released while reading. ``OSError`` when a
    file cannot be read, ``ValueError`` when it is no record file or its games differ."""
