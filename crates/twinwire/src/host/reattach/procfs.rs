//! What `/proc` says of a process: its state, process group and start time. Linux only;
//! elsewhere nothing is known, and nothing is signalled on a guess.

/// The fields of `/proc/<pid>/stat` the fence needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    /// Field 3: `R`, `S`, `Z` (a zombie: exited, not yet reaped), …
    pub state: char,
    /// Field 5.
    pub process_group: u32,
    /// Field 22: clock ticks after boot.
    pub start_time: u64,
}

impl Stat {
    /// Whether it still runs: a zombie or a dead task has exited.
    pub(crate) fn running(&self) -> bool {
        !matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// `/proc/<pid>/stat`, or `None` when there is no such process (or no `/proc`).
#[cfg(target_os = "linux")]
pub(crate) fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn stat(_pid: u32) -> Option<Stat> {
    None
}

/// Reads a stat line. The command name (field 2) is in parentheses and may hold spaces and
/// parentheses itself: the fields after it start after the last `)`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `fields[0]` is field 3.
    Some(Stat {
        state: fields.first()?.chars().next()?,
        process_group: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
}

/// The kernel's boot id.
#[cfg(target_os = "linux")]
pub(crate) fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_owned())
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn boot_id() -> Option<String> {
    None
}

/// Every process id in `/proc`.
#[cfg(target_os = "linux")]
pub(crate) fn pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn pids() -> Vec<u32> {
    Vec::new()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_spaces_and_parentheses_is_read_past() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 \
                    1000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat.state, 'S');
        assert_eq!(stat.process_group, 4242);
        assert_eq!(stat.start_time, 987_654);
        assert!(stat.running());
        assert!(parse_stat("4242 (x) Z 1").is_none());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_read_from_proc() {
        let me = stat(std::process::id()).unwrap();
        assert!(me.running());
        assert!(me.start_time > 0);
        assert!(pids().contains(&std::process::id()));
        assert!(boot_id().is_some_and(|id| id.len() == 36));
    }
}
