//! The committed schemas and the host API reference must be what the code generates.

use crate::support::{houserule, repo};

#[test]
fn schemas_are_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let r = houserule(&["schemas", &dir.path().display().to_string()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut generated: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    generated.sort();
    let mut committed: Vec<String> = std::fs::read_dir(repo().join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    committed.sort();
    assert_eq!(
        generated, committed,
        "schemas/ lists other files than the code generates; run: houserule schemas schemas"
    );
    for name in generated {
        let fresh = std::fs::read_to_string(dir.path().join(&name)).unwrap();
        let old = std::fs::read_to_string(repo().join("schemas").join(&name)).unwrap();
        assert!(fresh == old, "schemas/{name} is stale; run: houserule schemas schemas");
    }
}

#[test]
fn host_api_reference_is_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("host-api.md");
    let r = houserule(&["api-reference", &file.display().to_string()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let fresh = std::fs::read_to_string(&file).unwrap();
    let old = std::fs::read_to_string(repo().join("docs/host-api.md")).unwrap();
    assert!(fresh == old, "docs/host-api.md is stale; run: houserule api-reference docs/host-api.md");
}

#[test]
fn the_ui_contract_is_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("contract.ts");
    let r = houserule(&["ui-contract", &file.display().to_string()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let fresh = std::fs::read_to_string(&file).unwrap();
    let old = std::fs::read_to_string(repo().join("ui/src/contract.ts")).unwrap();
    assert!(fresh == old, "ui/src/contract.ts is stale; run: houserule ui-contract ui/src/contract.ts");
    for call in ["hello", "view", "act", "save_house_rule"] {
        assert!(fresh.contains(&format!("  {call}: {{ params: ")), "the contract has the call {call}");
    }
}
