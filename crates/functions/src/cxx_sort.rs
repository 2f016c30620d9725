//! ClickHouse's selection and sorting of `base/sort.h` (`::nth_element`, `::partial_sort`:
//! miniselect's Floyd-Rivest selection, then libc++'s `std::sort`), repeated step by step
//! so that equal elements end where ClickHouse leaves them. `greater(a, b)` says that `a`
//! goes before `b`.
//!
//! Limits: `libc++`'s `std::sort` is repeated for ranges below 24 elements (sorting
//! networks, then insertion sort); longer ranges are sorted stably.

/// miniselect's `floyd_rivest_select_loop`, as ClickHouse's `::nth_element` and
/// `::partial_sort` run it (the order of equal elements follows from its swaps).
pub(crate) fn floyd_rivest<T>(a: &mut [T], mut left: isize, mut right: isize, k: isize, greater: &dyn Fn(&T, &T) -> bool) {
    while right > left {
        if right - left > 600 {
            let n = right - left + 1;
            let i = k - left + 1;
            let z = (n as f64).ln();
            let s = 0.5 * (2.0 * z / 3.0).exp();
            let mut sd = 0.5 * (z * s * (n as f64 - s) / n as f64).sqrt();
            if i < n / 2 {
                sd = -sd;
            }
            let new_left = left.max((k as f64 - i as f64 * s / n as f64 + sd) as isize);
            let new_right = right.min((k as f64 + (n - i) as f64 * s / n as f64 + sd) as isize);
            floyd_rivest(a, new_left, new_right, k, greater);
        }
        let (mut i, mut j) = (left, right);
        a.swap(left as usize, k as usize);
        let to_swap = greater(&a[left as usize], &a[right as usize]);
        if to_swap {
            a.swap(left as usize, right as usize);
        }
        // The pivot ends at `left` or `right` after the first swap below and stays there.
        let t = if to_swap { left } else { right } as usize;
        while i < j {
            a.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
            while greater(&a[i as usize], &a[t]) {
                i += 1;
            }
            while greater(&a[t], &a[j as usize]) {
                j -= 1;
            }
        }
        if to_swap {
            a.swap(left as usize, j as usize);
        } else {
            j += 1;
            a.swap(right as usize, j as usize);
        }
        if j <= k {
            left = j + 1;
        }
        if k <= j {
            right = j - 1;
        }
    }
}

fn sort3<T>(a: &mut [T], x: usize, y: usize, z: usize, greater: &dyn Fn(&T, &T) -> bool) {
    if !greater(&a[y], &a[x]) {
        if !greater(&a[z], &a[y]) {
            return;
        }
        a.swap(y, z);
        if greater(&a[y], &a[x]) {
            a.swap(x, y);
        }
        return;
    }
    if greater(&a[z], &a[y]) {
        a.swap(x, z);
        return;
    }
    a.swap(x, y);
    if greater(&a[z], &a[y]) {
        a.swap(y, z);
    }
}

/// Moves `a[last]` down past every element it is `greater` than, one swap at a time (the
/// tail of libc++'s `__sort4` and `__sort5`).
fn sift_last<T>(a: &mut [T], last: usize, greater: &dyn Fn(&T, &T) -> bool) {
    let mut j = last;
    while j > 0 && greater(&a[j], &a[j - 1]) {
        a.swap(j - 1, j);
        j -= 1;
    }
}

fn sort4<T>(a: &mut [T], greater: &dyn Fn(&T, &T) -> bool) {
    sort3(a, 0, 1, 2, greater);
    sift_last(a, 3, greater);
}

fn sort5<T>(a: &mut [T], greater: &dyn Fn(&T, &T) -> bool) {
    sort4(a, greater);
    sift_last(a, 4, greater);
}

/// libc++'s `std::sort` for fewer than 24 elements (sorting networks up to 5, then
/// insertion sort); longer ranges are sorted stably (see the module docs).
fn libcxx_sort<T>(a: &mut [T], greater: &dyn Fn(&T, &T) -> bool) {
    match a.len() {
        0 | 1 => {}
        2 => {
            if greater(&a[1], &a[0]) {
                a.swap(0, 1);
            }
        }
        3 => sort3(a, 0, 1, 2, greater),
        4 => sort4(a, greater),
        5 => sort5(a, greater),
        n if n < 24 => {
            for i in 1..n {
                let mut j = i;
                while j > 0 && greater(&a[j], &a[j - 1]) {
                    a.swap(j, j - 1);
                    j -= 1;
                }
            }
        }
        _ => a.sort_by(|l, r| {
            if greater(l, r) {
                std::cmp::Ordering::Less
            } else if greater(r, l) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        }),
    }
}

/// ClickHouse's `::partial_sort`: the best `mid` first, in order.
pub(crate) fn partial_sort<T>(a: &mut [T], mid: usize, greater: &dyn Fn(&T, &T) -> bool) {
    if a.is_empty() || mid == 0 {
        return;
    }
    floyd_rivest(a, 0, a.len() as isize - 1, mid as isize - 1, greater);
    libcxx_sort(&mut a[..mid], greater);
}

