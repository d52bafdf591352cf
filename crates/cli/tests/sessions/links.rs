//! Symbolic links under the config directory: one that leads out (to an absolute path, or up
//! with `..`) is refused by every command, and nothing outside is read, written or deleted
//! through it; one that stays inside (relative) is followed.

use std::os::unix::fs::symlink;
use std::path::Path;

use super::{conversation, snapshot, text, uuids, Tree, ID};

/// Every command that reads or changes the session `ID`, each of which must fail saying a
/// link leads out, with nothing outside changed, read into the config directory, or listed.
fn everything_refused(tree: &Tree) {
    let outside_before = snapshot(&tree.outside);
    let config_before = snapshot(&tree.config);
    for args in [
        &["show", ID, "--json"][..],
        &["show", ID, "--json", "--agent", "a1"],
        &["tag", ID, "planted"],
        &["rename", ID, "planted"],
        &["archive", ID],
        &["unarchive", ID],
        &["fork", ID],
        &["delete", ID, "--yes"],
    ] {
        let output = tree.run(args);
        let stderr = text(&output.stderr);
        assert!(
            !output.status.success(),
            "{args:?} succeeded: {}",
            text(&output.stdout)
        );
        assert!(
            stderr.contains("leads outside the config directory"),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            snapshot(&tree.outside),
            outside_before,
            "{args:?} changed outside"
        );
        assert_eq!(
            snapshot(&tree.config),
            config_before,
            "{args:?} changed the config"
        );
    }
    let listed = tree.run(&["list", "--all", "--json"]);
    assert!(listed.status.success());
    assert_eq!(
        text(&listed.stdout).trim(),
        "[]",
        "a session outside is listed"
    );
}

#[test]
fn a_transcript_that_links_outside_is_refused() {
    let tree = Tree::new();
    let secret = tree.outside.join("secret.jsonl");
    std::fs::write(&secret, conversation()).unwrap();
    symlink(&secret, tree.transcript(ID)).unwrap();
    everything_refused(&tree);
    // Up with `..` is out as well.
    std::fs::remove_file(tree.transcript(ID)).unwrap();
    symlink("../../../outside/secret.jsonl", tree.transcript(ID)).unwrap();
    assert!(tree.project.join("../../../outside/secret.jsonl").exists());
    everything_refused(&tree);
}

#[test]
fn a_project_directory_that_links_outside_is_not_entered() {
    let tree = Tree::new();
    let elsewhere = tree.outside.join("project");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join(format!("{ID}.jsonl")), conversation()).unwrap();
    std::fs::remove_dir(&tree.project).unwrap();
    symlink(&elsewhere, &tree.project).unwrap();
    everything_refused(&tree);
    // Named by its directory too.
    let output = tree.run(&["tag", ID, "planted", "--dir", "/work"]);
    assert!(
        text(&output.stderr).contains("leads outside"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn a_link_in_the_middle_of_the_path_is_not_followed() {
    let tree = Tree::new();
    // `projects` itself leads out.
    let projects = tree.outside.join("projects");
    let project = projects.join(tree.project.file_name().unwrap());
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join(format!("{ID}.jsonl")), conversation()).unwrap();
    std::fs::remove_dir_all(tree.config.join("projects")).unwrap();
    symlink(&projects, tree.config.join("projects")).unwrap();
    everything_refused(&tree);
}

#[test]
fn a_session_directory_that_links_outside_is_neither_read_nor_written() {
    let tree = Tree::new();
    std::fs::write(tree.transcript(ID), conversation()).unwrap();
    // `<session>/` (subagents, the archive mark) leads out, with a subagent there.
    let side = tree.outside.join("side");
    std::fs::create_dir_all(side.join("subagents")).unwrap();
    std::fs::write(side.join("subagents/agent-a1.jsonl"), conversation()).unwrap();
    symlink(&side, tree.project.join(ID)).unwrap();
    let before = snapshot(&tree.outside);
    let shown = tree.show(ID);
    assert_eq!(shown["subagents"], serde_json::json!([]), "{shown}");
    let output = tree.run(&["show", ID, "--agent", "a1", "--json"]);
    assert!(!output.status.success(), "{}", text(&output.stdout));
    let output = tree.run(&["archive", ID]);
    assert!(
        text(&output.stderr).contains("leads outside"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(snapshot(&tree.outside), before);
    // Deleting takes the link away, not what it points to.
    let output = tree.run(&["delete", ID, "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(!tree.transcript(ID).exists());
    assert!(tree.project.join(ID).symlink_metadata().is_err());
    assert_eq!(snapshot(&tree.outside), before);
}

#[test]
fn dangling_links_create_nothing() {
    let tree = Tree::new();
    // A transcript linked to a file outside that does not exist yet: tagging must not
    // create it.
    let planted = tree.outside.join("planted.jsonl");
    symlink(&planted, tree.transcript(ID)).unwrap();
    for args in [
        &["tag", ID, "x"][..],
        &["rename", ID, "x"],
        &["archive", ID],
    ] {
        let output = tree.run(args);
        assert!(!output.status.success(), "{args:?}");
        assert!(!planted.exists(), "{args:?} created {}", planted.display());
    }
    // Inside, a dangling link is no session at all.
    std::fs::remove_file(tree.transcript(ID)).unwrap();
    symlink("nothing.jsonl", tree.transcript(ID)).unwrap();
    let output = tree.run(&["tag", ID, "x"]);
    assert!(
        text(&output.stderr).contains("not found"),
        "{}",
        text(&output.stderr)
    );
    // The archive mark is written beside under a new name, never through a link left there.
    std::fs::remove_file(tree.transcript(ID)).unwrap();
    std::fs::write(tree.transcript(ID), conversation()).unwrap();
    let side = tree.project.join(ID);
    std::fs::create_dir(&side).unwrap();
    let mark = tree.outside.join("mark.json");
    symlink(&mark, side.join("archived.json.tmp")).unwrap();
    symlink(&mark, side.join("archived.json")).unwrap();
    let output = tree.run(&["archive", ID]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(!mark.exists(), "the archive mark was written outside");
    assert_eq!(tree.show(ID)["info"]["archived"], true);
}

#[test]
fn a_link_to_another_session_inside_is_followed() {
    let tree = Tree::new();
    let other = "22222222-2222-4333-8444-555555555555";
    std::fs::write(tree.transcript(other), conversation()).unwrap();
    symlink(format!("{other}.jsonl"), tree.transcript(ID)).unwrap();
    assert_eq!(uuids(&tree.show(ID)), uuids(&tree.show(other)));
    // A change through the link is a change of the file it names.
    let output = tree.run(&["rename", ID, "Both"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(tree.show(other)["info"]["summary"], "Both");
    // Deleting one removes the link only.
    let output = tree.run(&["delete", ID, "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(tree.transcript(ID).symlink_metadata().is_err());
    assert_eq!(uuids(&tree.show(other)).len(), 4);
    // An absolute link is refused even when it points inside: only a path resolved beneath
    // the config directory is followed.
    symlink(tree.transcript(other), tree.transcript(ID)).unwrap();
    let output = tree.run(&["show", ID]);
    assert!(
        text(&output.stderr).contains("leads outside"),
        "{}",
        text(&output.stderr)
    );
    assert!(Path::new(&tree.transcript(other)).exists());
}
