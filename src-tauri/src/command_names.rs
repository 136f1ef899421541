/// The app's commands, one per engine call (see docs/ui-contract.md).
pub const COMMANDS: &[&str] = &[
    "hello",
    "rulesets",
    "create",
    "open",
    "recent",
    "campaign",
    "view",
    "actions",
    "log",
    "act",
    "manifest",
    "house_rules",
    "save_house_rule",
    "remove_house_rule",
];
