//! A fleet over SSH losing a host mid-turn. The hosts are network namespaces made by the test,
//! each with its own address on a bridge, its own sshd and its own disk for the CLI
//! (`CLAUDE_CONFIG_DIR`); the CLIs are the real pinned Claude Code in one case and
//! twinwire-agent in the other, offline against the scripted model server (listening on the
//! bridge). Needs root (namespaces, links); `ip` and
//! `sshd` are named by `TWINWIRE_IP` and `TWINWIRE_SSHD` (`cargo xtask test` installs both).
//!
//! Every session finishes a first turn; then, with every session's second turn held inside its
//! Bash call, every process in one namespace is killed at once, as a machine losing its power
//! (its sshd, the wrappers, the CLIs and their tools: all stopped, then all killed). The fleet
//! must: see the host down; resume each of its sessions on another host from the transcript
//! store, at the first turn, sending the lost prompt again; tell the caller (the turn's moves,
//! and the events); and leave nothing running anywhere once the sessions close. `TWINWIRE_FLEET_SESSIONS` sets the size (default 9; 60 for the full size).
#![allow(clippy::unwrap_used)]
// The test reports its phases and figures on stderr (the full-size run's figures are read there).
#![allow(clippy::print_stderr)]
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use twinwire::host::callbacks::can_use_tool;
use twinwire::host::fleet::{Fleet, FleetEvent, FleetHost, LeastLoaded};
use twinwire::protocol::permission::PermissionResult;
use twinwire::sessions::stores::DirectoryTranscriptStore;
use twinwire_model_server::{ModelScript, ModelServer};

const HOSTS: usize = 3;
/// Every wait of the test: generous for a busy machine; a hang still ends.
const LIMIT: Duration = Duration::from_secs(240);

#[test]
fn a_fleet_of_claude_code_that_loses_a_host_mid_turn_finishes_every_session_elsewhere() {
    fleet_losing_a_host(twinwire_testkit::real_claude());
}

#[test]
fn a_fleet_of_twinwire_agent_that_loses_a_host_mid_turn_finishes_every_session_elsewhere() {
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"));
    fleet_losing_a_host(twinwire_testkit::twinwire_agent_in(
        bin_dir.parent().unwrap(),
    ));
}

fn fleet_losing_a_host(cli: PathBuf) {
    assert!(
        is_root(),
        "the fleet test makes network namespaces: it needs root"
    );
    let sessions: usize = std::env::var("TWINWIRE_FLEET_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(9);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let net = Net::new(root.path());
    runtime.block_on(run(&net, root.path(), sessions, &cli));
    drop(runtime);
    net.assert_only_sshd_left();
}

async fn run(net: &Net, root: &Path, sessions: usize, cli: &Path) {
    let model = ModelServer::start_at(script(), (net.bridge_ip(), 0).into())
        .await
        .unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(work.join("started")).unwrap();
    std::fs::write(work.join("step.sh"), STEP).unwrap();
    std::fs::write(work.join("hold"), "").unwrap();
    let run_tag = format!("fleet-{}-{}", std::process::id(), net.id);
    let options = twinwire::Options::builder()
        .cli_path(cli)
        .cwd(&work)
        .env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "fleet-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env("FLEET_RUN", &run_tag)
        .transcript_store(Arc::new(DirectoryTranscriptStore::new(root.join("store"))))
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        }))
        .build()
        .unwrap();
    let per_tenant = sessions.div_ceil(3);
    let mut builder = Fleet::builder(options)
        .placement(LeastLoaded::new().per_tenant(per_tenant))
        .health_every(Duration::from_secs(1))
        .probe_limit(Duration::from_secs(30));
    for (index, host) in net.hosts.iter().enumerate() {
        let disk = root.join(format!("disk-{index}"));
        std::fs::create_dir_all(disk.join("config")).unwrap();
        std::fs::create_dir_all(disk.join("tmp")).unwrap();
        builder = builder.host(
            FleetHost::via(host.name.clone(), &net.ssh(index))
                .unwrap()
                .capacity(sessions)
                .env("CLAUDE_CONFIG_DIR", disk.join("config"))
                .env("TMPDIR", disk.join("tmp"))
                .env("CLAUDE_CODE_TMPDIR", disk.join("tmp"))
                .env("FLEET_HOST", &host.name),
        );
    }
    let fleet = builder.build().unwrap();
    let mut events = fleet.subscribe();
    let began = Instant::now();

    // Open every session at once, each tenant up to its limit; one more for a full tenant is
    // refused before anything starts.
    let opened = futures::future::join_all((0..sessions).map(|k| {
        let fleet = fleet.clone();
        async move { fleet.session(&format!("tenant-{}", k % 3)).await }
    }))
    .await;
    let mut opened: Vec<_> = opened.into_iter().map(Result::unwrap).collect();
    let over = fleet.session("tenant-0").await.unwrap_err().to_string();
    assert!(over.contains("its limit"), "{over}");
    let spread: Vec<usize> = fleet.hosts().iter().map(|h| h.sessions).collect();
    assert!(
        spread.iter().max().unwrap() - spread.iter().min().unwrap() <= 1,
        "least loaded spreads them evenly: {spread:?}"
    );

    eprintln!("fleet: {sessions} sessions open in {:?}", began.elapsed());
    // The first turn, everywhere.
    let firsts =
        futures::future::join_all(opened.iter_mut().enumerate().map(|(k, s)| async move {
            tokio::time::timeout(LIMIT, s.turn(&format!("FIRST turn of session {k}"))).await
        }))
        .await;
    for (k, first) in firsts.into_iter().enumerate() {
        let first = first.expect("first turn in time").unwrap();
        assert!(first.moved.is_empty());
        let text = first
            .result()
            .and_then(|r| r.result.clone())
            .unwrap_or_default();
        assert!(
            text.contains(&format!("FIRST turn of session {k}")),
            "{text}"
        );
    }

    // The second turn: every session's Bash call waits on `hold`. Once all have started, the
    // first host loses everything it runs, and the hold is lifted.
    let doomed = net.hosts[0].name.clone();
    let on_doomed: Vec<String> = opened
        .iter()
        .filter(|s| s.host() == doomed)
        .map(|s| s.session_id().to_owned())
        .collect();
    assert!(!on_doomed.is_empty());
    let seconds =
        futures::future::join_all(opened.iter_mut().enumerate().map(|(k, s)| async move {
            tokio::time::timeout(LIMIT, s.turn(&format!("SLOW step of session {k}"))).await
        }));
    let killer = async {
        wait_for(
            || count(&work.join("started")) >= sessions,
            "every tool started",
        )
        .await;
        eprintln!(
            "fleet: every second turn in its tool at {:?}; killing {doomed}",
            began.elapsed()
        );
        let killed = net.kill_host(0);
        std::fs::remove_file(work.join("hold")).unwrap();
        killed
    };
    let (seconds, killed) = tokio::join!(seconds, killer);
    eprintln!("fleet: every second turn finished at {:?}", began.elapsed());

    let mut moved = Vec::new();
    for (k, second) in seconds.into_iter().enumerate() {
        let second = second.expect("second turn in time").unwrap();
        let result = second.result().expect("a result");
        assert!(!result.is_error, "session {k}: {result:?}");
        assert_eq!(result.result.as_deref(), Some("Step done."), "session {k}");
        let id = opened[k].session_id().to_owned();
        if on_doomed.contains(&id) {
            assert_eq!(
                second.moved.len(),
                1,
                "session {k} ({id}) moved once; its turn: {:#?}\nstarted: {:?}\nkilled: {killed:#?}",
                summary(&second.messages),
                names(&work.join("started"))
            );
            let step = &second.moved[0];
            assert_eq!(step.from, doomed);
            assert_ne!(step.to, doomed);
            assert_eq!(opened[k].host(), step.to);
            moved.push((k, id));
        } else {
            assert!(
                second.moved.is_empty(),
                "session {k} stayed: {:?}",
                second.moved
            );
        }
    }
    assert_eq!(moved.len(), on_doomed.len());
    assert!(!fleet.hosts()[0].healthy, "{:?}", fleet.hosts());

    // What the model was asked on the new host: the first turn kept, the lost one's partial
    // entries gone, the prompt once.
    let requests = model.message_requests();
    for (k, _) in &moved {
        let step = format!("SLOW step of session {k}");
        let last = requests
            .iter()
            .rev()
            .map(|r| r["messages"].to_string())
            .find(|m| m.contains(&step))
            .unwrap();
        assert!(
            last.contains(&format!("FIRST turn of session {k}")),
            "{last}"
        );
        assert_eq!(last.matches(&step).count(), 1, "{last}");
    }

    // The caller's events: the host down, and every move.
    let mut down = 0;
    let mut moves = 0;
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        seen.push(format!("{event:?}"));
        match event {
            FleetEvent::HostDown { host, .. } if host == doomed => down += 1,
            FleetEvent::Moved(step) if step.from == doomed => moves += 1,
            _ => {}
        }
    }
    assert_eq!(down, 1, "{seen:#?}");
    assert_eq!(moves, moved.len(), "{seen:#?}");

    // A third turn on the moved sessions: the new host keeps them.
    for (k, _) in &moved {
        let third = tokio::time::timeout(LIMIT, opened[*k].turn(&format!("THIRD of {k}")))
            .await
            .unwrap()
            .unwrap();
        assert!(third.moved.is_empty());
    }

    for session in opened {
        tokio::time::timeout(LIMIT, session.close())
            .await
            .unwrap()
            .unwrap();
    }
    fleet.close();
    model.shutdown().await;
    wait_for(
        || twinwire_testkit_processes(&run_tag).is_empty(),
        "no CLI, wrapper or tool of the run left",
    )
    .await;
    eprintln!(
        "fleet of {}: {sessions} sessions over {HOSTS} hosts, {} moved off the lost host",
        cli.display(),
        moved.len()
    );
}

/// The Bash step: marks that it started (on which host), then waits while `hold` is there (the
/// call's time limit is the longest Claude Code takes, so that a slow start of many sessions
/// never ends a call before the host is killed).
const STEP: &str = "touch \"started/$FLEET_HOST.$$\"\nwhile [ -e hold ]; do sleep 0.2; done\n";

fn script() -> ModelScript {
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "Step done."}},
        {"when": {"last_prompt_contains": "SLOW step"},
         "reply": {"tool_use": {"name": "Bash", "text": "Stepping.",
            "input": {"command": "sh step.sh", "description": "one step",
                      "timeout": 600_000}}}},
    ], "default": {"echo": true}}))
    .unwrap()
}

fn signal(signal: &str, pids: &[String]) {
    let _ = Command::new("kill")
        .arg(signal)
        .args(pids)
        .stderr(Stdio::null())
        .status();
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A turn's messages, a line each, for a failure's message.
fn summary(messages: &[twinwire::protocol::Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            let mut line = serde_json::to_string(m).unwrap_or_default();
            line.truncate(300);
            line
        })
        .collect()
}

fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, Iterator::count)
}

async fn wait_for(mut done: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + LIMIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
}

/// `/proc/<pid>/<file>`, empty when it cannot be read (the process ended).
fn proc_file(pid: &str, file: &str) -> Vec<u8> {
    std::fs::read(format!("/proc/{pid}/{file}")).unwrap_or_default()
}

/// A process for the test's messages: its pid and command line.
fn describe(pid: &str, cmdline: &[u8]) -> String {
    format!(
        "{pid} {}",
        String::from_utf8_lossy(cmdline).replace('\0', " ")
    )
}

/// Processes whose environment or command line holds `needle`, but this test's own.
fn twinwire_testkit_processes(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit()) || name == me {
            continue;
        }
        let has = |bytes: &[u8]| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
        let cmdline = proc_file(&name, "cmdline");
        if has(&cmdline) || has(&proc_file(&name, "environ")) {
            found.push(describe(&name, &cmdline));
        }
    }
    found
}

/// The test's hosts: a bridge on this machine and, per host, a namespace joined to it by a
/// veth pair, with its own sshd. Everything is removed on drop.
struct Net {
    id: u32,
    subnet: u8,
    dir: PathBuf,
    hosts: Vec<NsHost>,
}

struct NsHost {
    name: String,
    namespace: String,
    ip: String,
    sshd: Option<Child>,
}

impl Net {
    fn new(root: &Path) -> Self {
        // Unique per test of this run (they run at once) and unlikely to meet another run's.
        static NETS: AtomicU32 = AtomicU32::new(0);
        let nth = NETS.fetch_add(1, Ordering::SeqCst);
        let id = (std::process::id() % 10_000) * 10 + nth % 10;
        let subnet = ((std::process::id() % 100) * 2 + nth % 2) as u8 + 20;
        let dir = root.join("ssh");
        std::fs::create_dir_all(&dir).unwrap();
        let mut net = Self {
            id,
            subnet,
            dir,
            hosts: Vec::new(),
        };
        let bridge = net.bridge();
        ip(&["link", "add", &bridge, "type", "bridge"]);
        ip(&[
            "addr",
            "add",
            &format!("{}/24", net.bridge_ip()),
            "dev",
            &bridge,
        ]);
        ip(&["link", "set", &bridge, "up"]);
        for key in ["host", "client"] {
            let made = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(net.dir.join(key))
                .status()
                .unwrap();
            assert!(made.success());
        }
        std::fs::copy(net.dir.join("client.pub"), net.dir.join("authorized_keys")).unwrap();
        let _ = std::fs::create_dir_all("/run/sshd");
        for index in 0..HOSTS {
            let host = net.add_host(index);
            net.hosts.push(host);
        }
        for index in 0..HOSTS {
            net.wait_for_login(index);
        }
        net
    }

    fn bridge(&self) -> String {
        format!("twb{}", self.id)
    }

    fn bridge_ip(&self) -> std::net::Ipv4Addr {
        std::net::Ipv4Addr::new(10, 231, self.subnet, 1)
    }

    fn add_host(&self, index: usize) -> NsHost {
        let namespace = format!("twf{}h{index}", self.id);
        let outer = format!("tw{}v{index}", self.id);
        let inner = format!("tw{}p{index}", self.id);
        let address = format!("10.231.{}.{}", self.subnet, 10 + index);
        ip(&["netns", "add", &namespace]);
        ip(&[
            "link", "add", &outer, "type", "veth", "peer", "name", &inner,
        ]);
        ip(&["link", "set", &inner, "netns", &namespace]);
        ip(&["link", "set", &outer, "master", &self.bridge(), "up"]);
        ip(&[
            "-n",
            &namespace,
            "addr",
            "add",
            &format!("{address}/24"),
            "dev",
            &inner,
        ]);
        ip(&["-n", &namespace, "link", "set", &inner, "up"]);
        ip(&["-n", &namespace, "link", "set", "lo", "up"]);
        let config = self.dir.join(format!("sshd_config.{index}"));
        std::fs::write(
            &config,
            format!(
                "Port 22\nListenAddress {address}\nHostKey {d}/host\n\
                 AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.{index}.pid\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n\
                 AcceptEnv NONE\nMaxStartups 200\nMaxSessions 200\n",
                d = self.dir.display()
            ),
        )
        .unwrap();
        let sshd = Command::new(ip_path())
            .args(["netns", "exec", &namespace])
            .arg(twinwire_testkit::sshd())
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .arg("-E")
            .arg(self.dir.join(format!("sshd.{index}.log")))
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        NsHost {
            name: format!("host-{index}"),
            namespace,
            ip: address,
            sshd: Some(sshd),
        }
    }

    /// The ssh command line that reaches host `index`. A killed host shows at once (its end of
    /// the connection is closed); the keep-alives and the connect time are lenient, so that a
    /// busy machine does not drop a healthy host's sessions as well.
    fn ssh(&self, index: usize) -> String {
        format!(
            "ssh -F /dev/null -i {} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
             -o BatchMode=yes -o LogLevel=ERROR -o ConnectTimeout=30 -o ServerAliveInterval=10 \
             -o ServerAliveCountMax=6 root@{}",
            self.dir.join("client").display(),
            self.hosts.get(index).map_or("", |h| h.ip.as_str())
        )
    }

    fn wait_for_login(&self, index: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let line = self.ssh(index);
        let words: Vec<&str> = line.split_whitespace().collect();
        loop {
            let ok = Command::new(words[0])
                .args(&words[1..])
                .arg("true")
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return;
            }
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(self.dir.join(format!("sshd.{index}.log")))
                    .unwrap_or_default();
                panic!("host {index}'s sshd does not accept a login:\n{log}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Kills every process of host `index`'s namespace, its sshd and all it runs, the way a
    /// machine losing its power ends them: at once. Each is stopped first, again until a round
    /// finds none new (a fork in flight), and only then are all killed; killed one by one, a
    /// CLI could see its tool end and go on before its own turn came. Returns what it killed,
    /// for the test's messages.
    fn kill_host(&self, index: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut stopped: Vec<String> = Vec::new();
        let mut killed = Vec::new();
        loop {
            let new: Vec<String> = self
                .live_pids(index)
                .into_iter()
                .filter(|pid| !stopped.contains(pid))
                .collect();
            if new.is_empty() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "host {index} keeps forking: {new:?}"
            );
            killed.extend(
                new.iter()
                    .map(|pid| describe(pid, &proc_file(pid, "cmdline"))),
            );
            signal("-STOP", &new);
            stopped.extend(new);
        }
        assert!(!stopped.is_empty());
        signal("-KILL", &stopped);
        loop {
            let left = self.live_pids(index);
            if left.is_empty() {
                return killed;
            }
            assert!(
                Instant::now() < deadline,
                "host {index} outlives kill: {left:?}"
            );
            signal("-KILL", &left);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The namespace's processes that have not ended (a zombie waits for its parent's reaper).
    fn live_pids(&self, index: usize) -> Vec<String> {
        self.pids(index)
            .into_iter()
            .filter(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let state = stat
                    .rsplit_once(") ")
                    .and_then(|(_, rest)| rest.chars().next());
                !matches!(state, None | Some('Z' | 'X'))
            })
            .collect()
    }

    fn pids(&self, index: usize) -> Vec<String> {
        let out = Command::new(ip_path())
            .args(["netns", "pids", &self.hosts[index].namespace])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    /// In every namespace still up, nothing runs but its sshd.
    fn assert_only_sshd_left(&self) {
        for (index, host) in self.hosts.iter().enumerate() {
            let sshd = host.sshd.as_ref().map(Child::id).map(|p| p.to_string());
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let others: Vec<String> = self
                    .pids(index)
                    .into_iter()
                    .filter(|p| Some(p) != sshd.as_ref())
                    .collect();
                if others.is_empty() {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "{} still runs: {others:?}",
                    host.name
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for index in 0..self.hosts.len() {
            for pid in self.pids(index) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid])
                    .stderr(Stdio::null())
                    .status();
            }
            if let Some(mut sshd) = self.hosts[index].sshd.take() {
                let _ = sshd.kill();
                let _ = sshd.wait();
            }
            let _ = Command::new(ip_path())
                .args(["netns", "del", &self.hosts[index].namespace])
                .status();
        }
        let _ = Command::new(ip_path())
            .args(["link", "del", &self.bridge()])
            .status();
    }
}

fn ip_path() -> PathBuf {
    std::env::var_os("TWINWIRE_IP")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("ip"), PathBuf::from)
}

fn ip(args: &[&str]) {
    let out = Command::new(ip_path()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}
