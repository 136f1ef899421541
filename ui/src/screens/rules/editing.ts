// The house-rules screen's state: the files (asked once, asked again after each save or removal),
// which one is open, the name typed for a new one, and saving or removing it. A save that does
// not load marks its problems in the editor; one that does marks the functions that change
// nothing. Either way the table keeps playing: the engine swaps rules in only when they load.

import { useEffect, useRef, useState } from "preact/hooks";
import { useAction, useCall } from "../../calls";
import type { HouseRulesState } from "../../contract";
import type { Store } from "../../store";
import { toReport } from "../../transport";
import { useRuleEditor } from "./editor";
import { asProblems, fileNameOf, opened, sameFile, TEMPLATE, warningsOf, type Outcome, type Selected } from "./model";

export function useEditing(store: Store) {
  const files = useCall(store, "house_rules", {});
  const act = useAction<"save" | "remove">(store);
  const [selected, setSelected] = useState<Selected>({ type: "new" });
  const [name, setName] = useState("house-rule.rhai");
  const [dirty, setDirty] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [text, setText] = useState(TEMPLATE);
  const [secret, setSecretShown] = useState(false);
  const editor = useRuleEditor("House rule text", {
    onChange: (t) => {
      setText(t);
      setDirty(true);
    },
    onSave: () => void save(),
  });
  const rules = files.value ?? null;
  const fileName = fileNameOf(name);
  useFirstFile(rules, (first) => select({ type: "house", name: first }, rules));

  /** Opens `next` (a new file starts with `initialText`, else the template). */
  function select(next: Selected, r: HouseRulesState | null = rules, initialText?: string) {
    setSelected(next);
    act.fail(null);
    setOutcome(null);
    setConfirmRemove(false);
    const { body, readOnly, name: shown } = opened(next, r, initialText);
    setSecretShown(next.type === "house" && !!r?.secret?.includes(next.name));
    if (shown !== null) setName(shown);
    setText(body);
    editor.show(body, readOnly, next.type === "house" ? asProblems(warningsOf(r, next.name)) : []);
    setDirty(false);
  }

  async function save() {
    if (selected.type === "ruleset" || !fileName || act.busy) return;
    const body = editor.text() ?? text;
    setOutcome(null);
    await act.run(async () => {
      let report;
      try {
        report = await store.call("save_house_rule", { name: fileName, text: body, secret });
      } catch (e) {
        editor.showProblems((toReport(e).diagnostics ?? []).filter((d) => sameFile(d, fileName)));
        throw e;
      }
      setDirty(false);
      if (report) store.noteReload(report);
      const warnings = warningsOf((await files.reload()) ?? null, fileName);
      setOutcome({ kind: report ? "saved" : "unchanged", report, name: fileName, warnings });
      editor.showProblems(asProblems(warnings));
      setSelected({ type: "house", name: fileName });
      setName(fileName);
    }, "save");
  }

  async function remove() {
    if (selected.type !== "house") return;
    const removing = selected.name;
    setOutcome(null);
    await act.run(async () => {
      const report = await store.call("remove_house_rule", { name: removing });
      if (report) store.noteReload(report);
      select({ type: "new" }, (await files.reload()) ?? null);
      setOutcome({ kind: "removed", report, name: removing, warnings: [] });
    }, "remove");
    setConfirmRemove(false);
  }

  /** Keeps the rule secret from players or not: a saved one at once, a new one with its save
   * (before its first reload, so that not even its name reaches a player). */
  async function setSecret(next: boolean) {
    setSecretShown(next);
    if (selected.type !== "house") return;
    const name = selected.name;
    await act.run(async () => {
      await store.call("house_rule_secret", { name, secret: next });
      await files.reload();
    }, "save");
  }

  /** A ruleset function copied into a new house rule, under the template. */
  function copyToHouseRule(fnText: string) {
    select({ type: "new" }, rules, `${TEMPLATE}${fnText}\n`);
    setDirty(true);
  }

  return { rules, loadError: files.error, act, selected, name, setName, fileName, dirty, confirmRemove, setConfirmRemove, outcome, editor, select, save, remove, copyToHouseRule, secret, setSecret };
}

/** Calls `open` with the first house-rule file when the files first arrive (if there is one). */
function useFirstFile(rules: HouseRulesState | null, open: (name: string) => void) {
  const done = useRef(false);
  useEffect(() => {
    if (done.current || !rules) return;
    done.current = true;
    if (rules.files.length) open(rules.files[0].name);
  }, [rules]);
}
