// Under the editor, read out as it changes: why a save did not load (each problem a link to its
// line), or the reload report of a save or removal (what changed, the new settings, the reload's
// event and rules digest), and the functions of a saved file that change nothing.

import type { Diagnostic, ErrorReport, HouseFunction, ReloadReport } from "../../contract";
import { Diagnostics } from "../../ui/errors";
import type { Outcome } from "./model";

export function EditorStatus({
  error,
  fileName,
  outcome,
  onPick,
  onGoTo,
}: {
  error: ErrorReport | null;
  fileName: string;
  outcome: Outcome | null;
  /** A problem of the save was picked. */
  onPick: (d: Diagnostic) => void;
  onGoTo: (line: number, column: number) => void;
}) {
  return (
    <div class="editor-status" aria-live="polite">
      {error && <NotSaved error={error} fileName={fileName} onPick={onPick} />}
      {outcome && <Reloaded outcome={outcome} />}
      {outcome && outcome.warnings.length > 0 && <ChangeNothing warnings={outcome.warnings} onGoTo={onGoTo} />}
    </div>
  );
}

function NotSaved({ error, fileName, onPick }: { error: ErrorReport; fileName: string; onPick: (d: Diagnostic) => void }) {
  return (
    <div class="notice failure" role="alert">
      <strong class="notice-title">{error.code === "invalid_house_rule" ? `${fileName} does not load` : "Not saved"}</strong>
      {error.diagnostics && error.diagnostics.length ? <Diagnostics items={error.diagnostics} onPick={onPick} /> : <p>{error.message}</p>}
      <p class="small">The table keeps playing with the previous rules.</p>
    </div>
  );
}

function Reloaded({ outcome }: { outcome: Outcome }) {
  return (
    <div class="notice success" role="status">
      {outcome.kind === "unchanged" ? (
        <p>Nothing changed: {outcome.name} already says that.</p>
      ) : (
        <>
          <strong class="notice-title">{outcome.kind === "removed" ? `Removed ${outcome.name}` : `Saved ${outcome.name}`}: the new rules are in force</strong>
          {outcome.report && <ReloadReportView report={outcome.report} />}
        </>
      )}
    </div>
  );
}

function ReloadReportView({ report }: { report: ReloadReport }) {
  return (
    <>
      <ul class="changed">
        {report.changed.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
        {Object.entries(report.settings).map(([k, v]) => (
          <li key={k}>
            setting <code>{k}</code> is now <code>{JSON.stringify(v)}</code>
          </li>
        ))}
      </ul>
      <p class="muted small">Reload #{report.seq} · rules digest {report.digest.slice(0, 12)}</p>
    </>
  );
}

function ChangeNothing({ warnings, onGoTo }: { warnings: HouseFunction[]; onGoTo: (line: number, column: number) => void }) {
  return (
    <div class="notice refused" role="status">
      <strong class="notice-title">Loaded, but {warnings.length === 1 ? "one function changes" : `${warnings.length} functions change`} nothing</strong>
      <ul class="changed">
        {warnings.map((w) => (
          <li key={`${w.name}/${w.arity}`}>
            <button type="button" class="linklike" onClick={() => onGoTo(w.line, w.column)}>
              {w.file}:{w.line}:{w.column}
            </button>{" "}
            {w.warning}
          </li>
        ))}
      </ul>
    </div>
  );
}
