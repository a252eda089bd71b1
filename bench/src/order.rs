//! The order in which the systems take their turn in one round of an interleaved measurement.
//!
//! A fixed order (raw, signaltty, API, tmux, raw, …) gives every system a fixed place in the
//! round: always after the same system, always the same time after the round began. Nothing
//! shows that place to matter here (session 15: fixed and shuffled runs alternated, same
//! tails), but no comparison should rest on it, so each round shuffles the order; the seed is
//! the round's index, so a run is reproducible.

/// The order of `n` systems (indices `0..n`) in round `round`: a permutation that depends only
/// on `round`, and over many rounds puts each system in each place about equally often.
pub fn round_order<const N: usize>(round: u64) -> [usize; N] {
    let mut order: [usize; N] = std::array::from_fn(|i| i);
    let mut state = round;
    // Fisher–Yates with splitmix64 as the source: tiny, and good enough to spread places.
    for i in (1..N).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::round_order;

    #[test]
    fn every_round_is_a_permutation_and_places_are_spread_evenly() {
        let rounds = 4000;
        let mut places = [[0u32; 4]; 4];
        for round in 0..rounds {
            let order = round_order::<4>(round);
            let mut seen = order;
            seen.sort_unstable();
            assert_eq!(seen, [0, 1, 2, 3], "round {round}: {order:?}");
            for (place, &system) in order.iter().enumerate() {
                places[system][place] += 1;
            }
        }
        // Each of the 4 places should be taken by each system in about a quarter of the rounds.
        for (system, counts) in places.iter().enumerate() {
            for (place, &count) in counts.iter().enumerate() {
                assert!(
                    (800..1200).contains(&count),
                    "system {system} took place {place} in {count} of {rounds} rounds"
                );
            }
        }
        assert_eq!(
            round_order::<4>(7),
            round_order::<4>(7),
            "same round, same order"
        );
    }

    #[test]
    fn two_systems_alternate_unpredictably_but_fairly() {
        let first = (0..1000).filter(|&r| round_order::<2>(r)[0] == 0).count();
        assert!(
            (400..600).contains(&first),
            "system 0 went first {first} times in 1000"
        );
    }
}
