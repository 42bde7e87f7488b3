//! The search settings a user may set from outside — a config file, a command-line flag, a
//! UCI/UCCI option, an arena player's `option=NAME=VALUE`, a Python argument — each declared
//! once here with its range. [`SearchConfig::validate`](crate::SearchConfig::validate) and
//! every parser of those inputs read these declarations, so a value one path accepts is
//! accepted by every other path that takes the same setting.
//!
//! The defaults are [`SearchConfig::default`](crate::SearchConfig) (the paper's) and each
//! game's play preset; a knob holds only what is allowed.

use std::fmt;

/// A value refused by a knob: the knob's name, the text or value given, and the range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{knob}: expected {expected}, got {given:?}")]
pub struct KnobError {
    /// The knob's name, e.g. `"leaves_per_batch"`.
    pub knob: &'static str,
    /// What was given, as given.
    pub given: String,
    /// What the knob takes, e.g. `a whole number 1-256`.
    pub expected: String,
}

/// A whole-number setting in `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntKnob {
    /// The setting's name, as the config file and the arena's options spell it.
    pub name: &'static str,
    /// The least value allowed.
    pub min: u32,
    /// The greatest value allowed.
    pub max: u32,
}

impl IntKnob {
    /// Whether `v` is allowed.
    pub const fn contains(&self, v: u32) -> bool {
        self.min <= v && v <= self.max
    }

    /// `v` when it is allowed.
    ///
    /// # Errors
    /// [`KnobError`] naming the knob, the value and the range.
    pub fn check(&self, v: u32) -> Result<u32, KnobError> {
        self.contains(v)
            .then_some(v)
            .ok_or_else(|| self.error(v.to_string()))
    }

    /// Parses `text` (surrounding blanks allowed) as an allowed value.
    ///
    /// # Errors
    /// [`KnobError`] for text that is not a whole number or a number out of range.
    pub fn parse(&self, text: &str) -> Result<u32, KnobError> {
        match text.trim().parse::<u32>() {
            Ok(v) if self.contains(v) => Ok(v),
            _ => Err(self.error(text.to_string())),
        }
    }

    /// What the knob takes, for error messages and help: `a whole number 1-256`.
    pub fn expected(&self) -> String {
        format!("a whole number {}-{}", self.min, self.max)
    }

    fn error(&self, given: String) -> KnobError {
        KnobError {
            knob: self.name,
            given,
            expected: self.expected(),
        }
    }
}

/// A real setting: finite, above `min` (at least `min` when `min_included`) and at most
/// `max` (`f32::INFINITY`: no upper bound).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealKnob {
    /// The setting's name, as the config file and the arena's options spell it.
    pub name: &'static str,
    /// The lower bound.
    pub min: f32,
    /// Whether `min` itself is allowed.
    pub min_included: bool,
    /// The greatest value allowed.
    pub max: f32,
}

impl RealKnob {
    /// Whether `v` is allowed (never NaN or infinite).
    pub fn contains(&self, v: f32) -> bool {
        let above = if self.min_included {
            v >= self.min
        } else {
            v > self.min
        };
        v.is_finite() && above && v <= self.max
    }

    /// `v` when it is allowed.
    ///
    /// # Errors
    /// [`KnobError`] naming the knob, the value and the range.
    pub fn check(&self, v: f32) -> Result<f32, KnobError> {
        if self.contains(v) {
            Ok(v)
        } else {
            Err(self.error(v.to_string()))
        }
    }

    /// Parses `text` (surrounding blanks allowed) as an allowed value: the number as the
    /// search keeps it (`f32`), so a value too small for it is refused, not rounded to 0.
    ///
    /// # Errors
    /// [`KnobError`] for text that is not a number or a number out of range.
    pub fn parse(&self, text: &str) -> Result<f32, KnobError> {
        match text.trim().parse::<f32>() {
            Ok(v) if self.contains(v) => Ok(v),
            _ => Err(self.error(text.to_string())),
        }
    }

    /// What the knob takes, for error messages and help: `a number in (0, 100]`, or
    /// `a number >= 0` without an upper bound.
    pub fn expected(&self) -> String {
        let open = if self.min_included { '[' } else { '(' };
        match (self.max.is_finite(), self.min_included) {
            (true, _) => format!("a number in {open}{}, {}]", self.min, self.max),
            (false, true) => format!("a number >= {}", self.min),
            (false, false) => format!("a number > {}", self.min),
        }
    }

    fn error(&self, given: String) -> KnobError {
        KnobError {
            knob: self.name,
            given,
            expected: self.expected(),
        }
    }
}

impl fmt::Display for IntKnob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.expected())
    }
}

impl fmt::Display for RealKnob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.expected())
    }
}

/// Simulations of one search ([`SearchBudget::simulations`](crate::SearchBudget)): a tree
/// grows with them, and past ten million (~20 GB of tree) it would exhaust the memory before
/// it returned; a search meant to be longer is limited by time. (Self-play's
/// `selfplay.simulations` is narrower still: a record stores the count in 16 bits.)
pub const SIMULATIONS: IntKnob = IntKnob {
    name: "simulations",
    min: 1,
    max: 10_000_000,
};

/// Leaves collected with virtual loss per evaluator call
/// ([`SearchConfig::leaves_per_batch`](crate::SearchConfig::leaves_per_batch)): 1 is the
/// paper's sequential search; past 256 the virtual losses spread a batch over moves the
/// search would never visit.
pub const LEAVES_PER_BATCH: IntKnob = IntKnob {
    name: "leaves_per_batch",
    min: 1,
    max: 256,
};

/// Temperature of the priors' softmax
/// ([`SearchConfig::policy_temperature`](crate::SearchConfig::policy_temperature)): above 10
/// the priors are nearly uniform (the network no longer guides the search), below 0.1 nearly
/// one-hot.
pub const POLICY_TEMPERATURE: RealKnob = RealKnob {
    name: "policy_temperature",
    min: 0.1,
    min_included: true,
    max: 10.0,
};

/// A constant exploration weight of PUCT ([`CPuct::Constant`](crate::CPuct::Constant); also
/// the bound of `c_init`): above 100 the priors alone choose.
pub const C_PUCT: RealKnob = RealKnob {
    name: "c_puct",
    min: 0.0,
    min_included: false,
    max: 100.0,
};

/// First-play-urgency reduction ([`SearchConfig::fpu_reduction`](crate::SearchConfig)):
/// subtracted from the parent's value for unvisited children; 0 is no reduction.
pub const FPU_REDUCTION: RealKnob = RealKnob {
    name: "fpu_reduction",
    min: 0.0,
    min_included: true,
    max: f32::INFINITY,
};

/// Root actions a Gumbel root samples
/// ([`GumbelConfig::num_sampled_actions`](crate::GumbelConfig)): the paper's M (16).
pub const GUMBEL_SAMPLED_ACTIONS: IntKnob = IntKnob {
    name: "gumbel.num_sampled_actions",
    min: 1,
    max: 1024,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_knob_takes_its_range_and_refuses_the_rest_naming_itself() {
        assert_eq!(LEAVES_PER_BATCH.parse(" 256 "), Ok(256));
        let e = LEAVES_PER_BATCH.parse("0").unwrap_err().to_string();
        assert_eq!(
            e,
            "leaves_per_batch: expected a whole number 1-256, got \"0\""
        );
        assert!(LEAVES_PER_BATCH.parse("257").is_err());
        assert!(LEAVES_PER_BATCH.parse("-1").is_err());
        assert_eq!(C_PUCT.parse("100"), Ok(100.0));
        for bad in ["0", "-1", "100.5", "nan", "inf", "1e-46", "two"] {
            let e = C_PUCT.parse(bad).unwrap_err();
            assert_eq!(e.expected, "a number in (0, 100]", "{bad}");
        }
        assert_eq!(POLICY_TEMPERATURE.parse("0.1"), Ok(0.1));
        assert!(POLICY_TEMPERATURE.check(0.09).is_err());
        assert_eq!(FPU_REDUCTION.expected(), "a number >= 0");
        assert_eq!(FPU_REDUCTION.parse("0"), Ok(0.0));
        assert!(FPU_REDUCTION.parse("inf").is_err());
        assert_eq!(SIMULATIONS.check(10_000_000), Ok(10_000_000));
        assert!(SIMULATIONS.check(10_000_001).is_err());
    }
}
