//! `twinwire run --via "ssh …"`: the real pinned CLI on the far side of a real `sshd`, a private
//! one started by the test on 127.0.0.1 with its own keys (Debian's openssh-server, installed
//! by `cargo xtask test`, named in `TWINWIRE_SSHD`). The "remote" machine is this one, so the
//! test can see every process the session left there.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

mod common;
use common::{fake_claude, quoted, twinwire};

/// A private sshd on 127.0.0.1; killed when dropped.
struct Sshd {
    dir: tempfile::TempDir,
    port: u16,
    child: Child,
}

impl Sshd {
    fn start() -> Self {
        let sshd = twinwire_testkit::sshd();
        let dir = tempfile::tempdir().expect("tempdir");
        for key in ["host", "client"] {
            let made = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.path().join(key))
                .status()
                .expect("ssh-keygen");
            assert!(made.success());
        }
        std::fs::copy(
            dir.path().join("client.pub"),
            dir.path().join("authorized_keys"),
        )
        .expect("authorized_keys");
        // sshd's privilege separation needs this directory (it exists where sshd is a service).
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let config = dir.path().join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host\n\
                 AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n\
                 AcceptEnv NONE\n",
                d = dir.path().display()
            ),
        )
        .expect("sshd_config");
        let child = Command::new(&sshd)
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .arg("-E")
            .arg(dir.path().join("sshd.log"))
            .stdin(Stdio::null())
            .spawn()
            .expect("starting sshd");
        let sshd = Self { dir, port, child };
        if !sshd.answers() {
            let log = std::fs::read_to_string(sshd.dir.path().join("sshd.log")).unwrap_or_default();
            panic!("the private sshd does not accept a login:\n{log}");
        }
        sshd
    }

    /// The client command line, for `--via`.
    fn via(&self) -> String {
        format!(
            "ssh -F /dev/null -i {} -p {} -o StrictHostKeyChecking=no \
             -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR {}@127.0.0.1",
            self.dir.path().join("client").display(),
            self.port,
            whoami()
        )
    }

    /// Whether a login works (waits up to 10 s for the server to listen).
    fn answers(&self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let words = shlex::split(&self.via()).expect("words");
            let ok = Command::new(&words[0])
                .args(&words[1..])
                .arg("true")
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

fn whoami() -> String {
    let out = Command::new("id").arg("-un").output().expect("id -un");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The model script: TOUCH asks for a file, SLOW for a two-minute tool call tagged `tag`.
fn script(dir: &Path, tag: &str) -> PathBuf {
    let script = json!({
        "rules": [
            {"when": {"last_is_tool_result": true}, "reply": {"text": "Done remotely."}},
            {"when": {"last_prompt_contains": "TOUCH"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": "touch via-ssh.txt", "description": "touch"}}}},
            {"when": {"last_prompt_contains": "SLOW"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": format!("python3 slow.py {tag}"),
                                              "description": "wait"}}}}
        ],
        "default": {"echo": true}
    });
    // A script file: the rules allow `python3 FILE`, never code on the command line.
    std::fs::write(dir.join("slow.py"), "import time\ntime.sleep(120)\n").expect("slow.py");
    let path = dir.join("script.json");
    std::fs::write(&path, script.to_string()).expect("script");
    path
}

fn run_via(sshd: &Sshd, work: &Path, script: &Path, allow: &str, prompt: &str) -> Command {
    let mut command = Command::new(twinwire());
    command
        .arg("run")
        .args(["--via", &sshd.via()])
        .arg("--cli-path")
        .arg(twinwire_testkit::real_claude())
        .arg("--offline")
        .arg("--model-script")
        .arg(script)
        .arg("--cwd")
        .arg(work)
        .args(["--allow", allow, "--no-prompt"])
        .arg(prompt)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    command
}

/// Processes whose command line or environment holds `needle`, but this test's own.
fn processes_with(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit()) || name == me {
            continue;
        }
        let read = |file: &str| std::fs::read(entry.path().join(file)).unwrap_or_default();
        let cmdline = read("cmdline");
        let environ = read("environ");
        let has = |bytes: &[u8]| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
        if has(&cmdline) || has(&environ) {
            found.push(format!(
                "{name} {}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

#[test]
fn a_tool_turn_through_ssh() {
    let sshd = Sshd::start();
    let work = tempfile::tempdir().expect("work");
    let script = script(work.path(), "unused");
    let output = run_via(&sshd, work.path(), &script, "Bash(touch:*)", "TOUCH it")
        .output()
        .expect("twinwire run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("⏺ Bash(touch via-ssh.txt)"), "{stdout}");
    assert!(stdout.contains("Done remotely."), "{stdout}");
    assert!(
        work.path().join("via-ssh.txt").exists(),
        "the tool did not run there"
    );
    // The CLI exited by itself once the host closed stdin: no warning about stopping it.
    assert!(!stderr.contains("kept running"), "{stderr}");
}

#[test]
fn killing_the_host_mid_turn_leaves_nothing_on_the_far_side() {
    let sshd = Sshd::start();
    let work = tempfile::tempdir().expect("work");
    let tag = format!("twinwire-launch-test-{}", std::process::id());
    let script = script(work.path(), &tag);
    let marker = format!("CLAUDE_TWINWIRE_TEST_MARK={tag}");
    let mut host = run_via(
        &sshd,
        work.path(),
        &script,
        "Bash(python3:*)",
        "SLOW please",
    )
    .args(["--env", &marker])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .expect("twinwire run");

    // The tool runs on the far side (the host's own command line names the tag too)…
    let host_pid = format!("{} ", host.id());
    let far_side = |needle: &str| -> Vec<String> {
        processes_with(needle)
            .into_iter()
            .filter(|p| !p.starts_with(&host_pid))
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !far_side(&tag).iter().any(|p| p.contains("python3")) {
        assert!(Instant::now() < deadline, "the slow tool never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    // …the variables travelled on stdin: the API key and the --env value are on no command
    // line but the host's own (where the user typed --env).
    for process in processes_with("offline-demo-key") {
        assert!(
            !process.contains("offline-demo-key"),
            "a secret on a command line: {process}"
        );
    }
    for process in processes_with(&marker) {
        assert!(
            process.starts_with(&host_pid) || !process.contains(&marker),
            "the --env value is on a command line: {process}"
        );
    }
    let far = far_side(&marker);
    assert!(
        far.iter().any(|p| p.contains("claude")),
        "the --env variable did not reach the CLI: {far:#?}"
    );

    // The host dies without a word: SIGKILL.
    host.kill().expect("kill");
    let _ = host.wait();

    // Within the grace (5 s), SIGTERM and SIGKILL ladder, nothing of the session is left.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left: Vec<String> = processes_with(&marker)
            .into_iter()
            .chain(processes_with(&tag))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "left running: {left:#?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A prefix that runs the CLI here (`nice`): the host SIGKILLed mid-turn leaves nothing. The
/// launcher's program (the wrapper, once `nice` has exec'd it) gets SIGTERM as its
/// parent-death signal, catches it and stops the CLI, which runs in a session of its own, and
/// the tool the CLI started, with the ladder.
#[test]
fn killing_the_host_mid_turn_through_a_local_prefix_leaves_nothing() {
    let work = tempfile::tempdir().expect("work");
    let tag = format!("twinwire-local-launch-test-{}", std::process::id());
    let script = work.path().join("script.json");
    std::fs::write(
        &script,
        json!({"turns": [{"steps": [{"text": "working"}, {"hang": true}]}]}).to_string(),
    )
    .expect("script");
    // The CLI starts a process of its own, as a tool would, then becomes the fake.
    let cli = work.path().join("claude");
    std::fs::write(
        &cli,
        format!(
            "#!/bin/sh\nsleep 1000 &\nexec {} \"$@\"\n",
            quoted(fake_claude())
        ),
    )
    .expect("cli");
    std::fs::set_permissions(&cli, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let mut host = Command::new(twinwire())
        .arg("run")
        .args(["--via", "nice -n 5", "--cli-path"])
        .arg(&cli)
        .args(["--no-prompt", "go"])
        .env("TWINWIRE_FAKE_SCRIPT", &script)
        .env("TWINWIRE_LOCAL_LAUNCH_TEST", &tag)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("twinwire run");
    let stdout = host.stdout.take().expect("stdout");
    let (said, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if said.send(line).is_err() {
                break;
            }
        }
    });
    // Mid-turn: the assistant has spoken and the fake hangs.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = heard.recv_timeout(left).expect("the turn never started");
        if line.contains("working") {
            break;
        }
    }
    let host_pid = format!("{} ", host.id());
    let ours: Vec<String> = processes_with(&tag)
        .into_iter()
        .filter(|p| !p.starts_with(&host_pid))
        .collect();
    assert!(
        ours.iter().any(|p| p.contains("fake-claude")) && ours.iter().any(|p| p.contains("sleep")),
        "the CLI and its tool: {ours:#?}"
    );

    host.kill().expect("kill");
    let _ = host.wait();

    // The ladder (5 s of grace, then SIGTERM) and nothing of the session is left.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = processes_with(&tag);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "left running: {left:#?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}
