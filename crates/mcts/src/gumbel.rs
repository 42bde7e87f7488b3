//! Sequential halving schedule of the Gumbel root (after mctx `seq_halving`).

/// The visit count an action must have to be considered at each simulation of sequential
/// halving with `m` sampled actions and `n` simulations (mctx
/// `get_sequence_of_considered_visits`). Length `n`.
///
/// The budget is split into `ceil(log2 m)` phases; in each, every remaining action gets
/// `max(1, n / (log2 m · remaining))` visits, then the remaining set halves (down to 2).
pub fn considered_visit_sequence(m: usize, n: usize) -> Vec<u32> {
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let mut seq = Vec::with_capacity(n);
    let mut visits = vec![0u32; m];
    let mut considered = m;
    while seq.len() < n {
        let extra = (n / (log2max * considered)).max(1);
        for _ in 0..extra {
            seq.extend_from_slice(&visits[..considered]);
            for v in &mut visits[..considered] {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    seq.truncate(n);
    seq
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_matches_mctx_for_small_budget() {
        // mctx: get_sequence_of_considered_visits(4, 8) == (0,0,0,0,1,1,2,2)
        assert_eq!(
            considered_visit_sequence(4, 8),
            vec![0, 0, 0, 0, 1, 1, 2, 2]
        );
        assert_eq!(considered_visit_sequence(1, 3), vec![0, 1, 2]);
        assert_eq!(considered_visit_sequence(16, 100).len(), 100);
    }
}
