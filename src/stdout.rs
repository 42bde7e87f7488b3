//! Writing to stdout for commands that keep `SIGPIPE` ignored (they talk to child processes
//! or sockets): a closed stdout (`| head`) ends the program quietly with the shell's SIGPIPE
//! status 141 instead of `println!` panicking; another write error is reported and exits 1.

/// Writes `args` to stdout and flushes it; a closed stdout exits the process with status 141,
/// another write error prints `error: writing to stdout: …` and exits with status 1.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// `println!` through [`write_stdout`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write_stdout(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};
