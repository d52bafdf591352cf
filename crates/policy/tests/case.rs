//! Names in another case: a deny rule folds case where the file system does, an allow rule
//! never widens to a name the text does not prove to be the same file.
#![allow(clippy::unwrap_used)]

use serde_json::json;
use twinwire_policy::{Base, Case, Decision, PermissionPolicy};

fn policy(case: Case, allow: &[&str], deny: &[&str]) -> PermissionPolicy {
    let (cwd, home) = if cfg!(windows) {
        (r"C:\srv\app", r"C:\Users\u")
    } else {
        ("/srv/app", "/home/u")
    };
    PermissionPolicy::parse(allow, deny)
        .unwrap()
        .with_base(Base::new(cwd, Some(home.into())).with_case(case))
}

fn read(policy: &PermissionPolicy, path: &str) -> Decision {
    policy.decide("Read", &json!({ "file_path": path }))
}

#[test]
fn a_deny_folds_case_on_a_case_insensitive_file_system() {
    let insensitive = policy(Case::Insensitive, &["Read"], &["Read(./secret/**)"]);
    let sensitive = policy(Case::Sensitive, &["Read"], &["Read(./secret/**)"]);
    for path in [
        "secret/key",
        "Secret/key",
        "SECRET/KEY",
        "./SeCrEt/../secret/x",
    ] {
        assert!(
            matches!(read(&insensitive, path), Decision::Deny(_)),
            "{path}"
        );
    }
    assert!(matches!(read(&sensitive, "secret/key"), Decision::Deny(_)));
    assert!(read(&sensitive, "Secret/key").is_allowed());
}

#[test]
fn an_allow_never_folds_case() {
    for case in [Case::Insensitive, Case::Sensitive] {
        let policy = policy(case, &["Read(./src/**)"], &[]);
        assert!(read(&policy, "src/main.rs").is_allowed(), "{case:?}");
        for path in ["SRC/main.rs", "Src/main.rs"] {
            assert!(
                matches!(read(&policy, path), Decision::Ask(_)),
                "{path} {case:?}"
            );
        }
    }
}

#[test]
fn the_probe_tells_what_the_file_system_does() {
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("Probe");
    std::fs::create_dir(&named).unwrap();
    let probed = Case::probe(&named);
    let same = dir.path().join("pROBE").exists();
    let expected = if same {
        Case::Insensitive
    } else {
        Case::Sensitive
    };
    assert_eq!(probed, Some(expected));
    // A name with no letter cannot tell.
    let digits = dir.path().join("123");
    std::fs::create_dir(&digits).unwrap();
    assert_eq!(Case::probe(&digits), None);
}
