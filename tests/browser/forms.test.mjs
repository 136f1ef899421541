// Forms a GM does not have to think about: an owner is picked from the table's players or named
// as someone new (and "Ann" for "ann" is caught), dice typed by hand only on actions that roll,
// with the ruleset's own dice named, a help text that quotes the rules in force (a house rule
// changes it), and a join link for a name nobody plays under asks "new player?" first.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, launchBrowser, openAction, openPage, screenshot, startServer, submit, until, writeHouseRule } from "./support.mjs";

describe("forms", { timeout: 180_000 }, () => {
  let server;
  let browser;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("picks players, offers hand dice only where dice roll, quotes the rules in force and asks before a new player", async () => {
    const { page: gm } = await openPage(browser, server.url, errors);
    await gmCreates(gm, server, "Fumbles", "Forms");

    // Creating a character rolls nothing: no hand dice. The owner is a picker.
    const create = await openAction(gm, "Create a character");
    assert.equal(await create.locator(".dice-field, .dice-note").count(), 0, "no dice on a form that rolls none");
    const owner = create.getByLabel("Owner", { exact: true });
    assert.deepEqual(await owner.locator("option").allInnerTexts(), ["—", "Someone new…"], "nobody plays here yet");
    await owner.selectOption({ label: "Someone new…" });
    await create.getByLabel("New player's name").fill("ann");
    await create.getByText("A new player").waitFor();
    await create.getByLabel("Name", { exact: true }).fill("Gandolf");
    await create.getByLabel("Traits", { exact: true }).fill("Magic!, Fireball, Barrier");
    await submit(create, "Create a character");
    await gm.getByRole("article", { name: "Gandolf" }).getByText("played by ann").waitFor();

    // Ann is offered now; "Ann" is caught before and after sending.
    assert.deepEqual(await owner.locator("option").allInnerTexts(), ["—", "ann", "Someone new…"]);
    await owner.selectOption({ label: "Someone new…" });
    await create.getByLabel("New player's name").fill("Ann");
    await create.getByText("ann already plays here").waitFor();
    await create.getByLabel("Name", { exact: true }).fill("Frody");
    await create.getByLabel("Traits", { exact: true }).fill("agility");
    await create.getByRole("button", { name: "Create a character", exact: true }).click();
    await create.getByRole("alert").filter({ hasText: "did you mean 'ann'" }).waitFor();
    await screenshot(gm, "player-picker");

    // A trait check rolls a d6 per trait: its form says so, and quotes the success face.
    const check = await openAction(gm, "Trait check");
    const handDice = check.locator(".dice-field label");
    assert.match(await handDice.innerText(), /^Dice rolled by hand \(.*d6.*; optional\)$/);
    assert.match(await check.innerText(), /4\+ is a success/);

    // A house rule makes 3+ a success: the same form now says 3+.
    const editorPanel = await writeHouseRule(gm, "three-up.rhai", "// Successes on 3+ at our table.\nfn success_face() { original() - 1 }\n");
    await editorPanel.getByRole("status").filter({ hasText: "Saved three-up.rhai" }).waitFor();
    await gm.getByRole("tab", { name: "Table" }).click();
    const again = await openAction(gm, "Trait check");
    await until("the help quotes the house rule's number", async () => /3\+ is a success/.test(await again.innerText()) || (await again.innerText()));

    // A join link for "Ann": nobody plays under that name, and ann is near it.
    await gm.getByRole("tab", { name: "Players" }).click();
    await gm.getByLabel("Player name").fill("Ann");
    await gm.getByRole("button", { name: "Make a join link" }).click();
    const asked = gm.getByRole("group", { name: "New player?" });
    await asked.waitFor();
    assert.match(await asked.innerText(), /did you mean ann\?/);
    await screenshot(gm, "new-player");
    await asked.getByRole("button", { name: "Link for ann" }).click();
    await gm.getByRole("textbox", { name: "Join link for ann" }).waitFor();
    await gm.getByRole("button", { name: "Done" }).click();
    // Someone new gets a plain question, and a link once confirmed.
    await gm.getByLabel("Player name").fill("cy");
    await gm.getByRole("button", { name: "Make a join link" }).click();
    assert.ok(!(await asked.innerText()).includes("did you mean"), "nobody near 'cy'");
    await asked.getByRole("button", { name: "Yes, a new player" }).click();
    await gm.getByRole("textbox", { name: "Join link for cy" }).waitFor();
    assert.deepEqual(errors, []);
  });
});
