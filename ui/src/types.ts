// The data the engine sends the UI, as described in docs/ui-contract.md and schemas/.
// Only what the screens read is typed; everything else passes through untouched.

export type Role = string; // "gm", "public" or "player:NAME"
export type Visibility = "public" | "owner" | "gm" | "hidden";

export interface RulesetInfo {
  id: string;
  name: string;
  version: string;
}

export interface CampaignInfo {
  id: string;
  name: string;
  ruleset: RulesetInfo;
  events: number;
  head: string;
  seed_commitment: string;
}

export interface Hello {
  role: Role;
  campaign: CampaignInfo | null;
  file?: string | null;
  host: "server" | "desktop";
}

export type SettingType = "int" | "bool" | "text" | "choice";

export interface SettingSpec {
  type: SettingType;
  default: unknown;
  label?: string | null;
  help?: string | null;
  min?: number | null;
  max?: number | null;
  options?: string[];
}

export interface RulesetChoice extends RulesetInfo {
  description: string;
  settings: Record<string, SettingSpec>;
}

export interface PoolView {
  label?: string | null;
  visibility: Visibility;
  count?: number | null;
  counts?: Record<string, number> | null;
  cap?: number | null;
  floor: number;
  empty?: boolean | null;
}

export interface Trait {
  name: string;
  rating?: number | null;
  category?: string | null;
  state?: "active" | "sealed" | "spent";
  uses?: number;
  tags?: string[];
  visibility?: Visibility;
  note?: string | null;
}

export interface EntityView {
  id: string;
  kind: string;
  name: string;
  owner?: string | null;
  fields: Record<string, unknown>;
  traits: Trait[];
  pools: Record<string, PoolView>;
}

export interface View {
  viewer: Role;
  campaign: CampaignInfo;
  round: number;
  settings: Record<string, unknown>;
  pools: Record<string, PoolView>;
  entities: Record<string, EntityView>;
  vars: Record<string, unknown>;
}

export type ParamType = "int" | "bool" | "text" | "choice" | "dice" | "entity" | "trait" | "pool" | "list" | "map" | "record";

export type Choices =
  | { from: "options"; values: string[] }
  | { from: "entities"; values: { id: string; name: string }[] }
  | { from: "traits"; entity: string; by_entity: Record<string, string[]> };

export interface ParamSpec {
  type: ParamType;
  label?: string | null;
  help?: string | null;
  optional?: boolean;
  default?: unknown;
  min?: number | null;
  max?: number | null;
  options?: string[];
  kind?: string | null;
  kinds?: string[];
  rule?: string | null;
  entity?: string | null;
  category?: string | null;
  of?: ParamType | ParamSpec | null;
  fields?: Record<string, ParamSpec>;
  min_items?: number | null;
  max_items?: number | null;
  max_len?: number | null;
  secret?: boolean;
  choices?: Choices | null;
}

export interface ParamForm extends ParamSpec {
  name: string;
}

export type Permit = "gm" | "player" | "owner";

export interface ActionForm {
  name: string;
  label: string;
  help?: string | null;
  group?: string | null;
  who: Permit[];
  params: ParamForm[];
}

export interface Die {
  sides: string;
  face: number;
  kept?: boolean;
  exploded?: boolean;
  bonus?: boolean;
  success?: boolean | null;
  marks?: string[];
}

export interface TermRoll {
  term: string;
  dice?: Die[];
  value: number;
  successes?: number | null;
}

export interface Roll {
  expr: string;
  label?: string | null;
  source: "forced" | { generated: { counter: number } };
  terms: TermRoll[];
  total: number;
  successes?: number | null;
  dice?: Die[];
}

export type Change = { op: string; [key: string]: unknown };

export type LogItem =
  | { visibility: Visibility; type: "param"; name: string; value: unknown }
  | { visibility: Visibility; type: "roll"; roll: Roll }
  | { visibility: Visibility; type: "change"; change: Change }
  | { visibility: Visibility; type: "say"; text: string }
  | { visibility: Visibility; type: "result"; value: unknown }
  | { visibility: Visibility; hidden: string; type?: undefined };

export interface LogEntry {
  seq: number;
  hash: string;
  at: string;
  kind: "created" | "action" | "reload" | "reveal";
  actor?: Role | null;
  action?: string | null;
  detail?: unknown;
  items: LogItem[];
}

export interface Outcome {
  event: LogEntry;
  result: unknown;
  script_log?: string[];
}

export interface ScriptError {
  kind: "syntax" | "runtime" | "refused" | "limit";
  file: string;
  line: number;
  column: number;
  message: string;
  trace?: string[];
}

export interface Diagnostic {
  file: string;
  line?: number | null;
  column?: number | null;
  field?: string | null;
  message: string;
  text: string;
}

export interface ErrorReport {
  code: string;
  message: string;
  param?: string | null;
  script?: ScriptError | null;
  diagnostics?: Diagnostic[];
}

export interface ReloadReport {
  seq: number;
  hash: string;
  ruleset: RulesetInfo;
  changed: string[];
  digest: string;
  settings: Record<string, unknown>;
}

export interface HouseFunction {
  file: string;
  name: string;
  arity: number;
  replaces: boolean;
}

export interface HouseRuleText {
  name: string;
  text: string;
  functions: HouseFunction[];
}

export interface HouseRulesState {
  files: HouseRuleText[];
  ruleset_files: HouseRuleText[];
}

export interface FieldSpec {
  label?: string | null;
  visibility?: Visibility;
  help?: string | null;
}

export interface KindSpec {
  label?: string | null;
  visibility?: Visibility;
  fields?: Record<string, FieldSpec>;
  pools?: Record<string, { label?: string | null; visibility?: Visibility }>;
}

export interface Manifest {
  id: string;
  name: string;
  version: string;
  description?: string;
  settings?: Record<string, SettingSpec>;
  kinds?: Record<string, KindSpec>;
  pools?: Record<string, { label?: string | null; visibility?: Visibility }>;
  actions?: Record<string, { label?: string | null }>;
}

export type SessionEvent =
  | { type: "committed"; seq: number; actor: Role; action: string }
  | { type: "reloaded"; report: ReloadReport }
  | { type: "reload_failed"; problems: Diagnostic[] }
  | { type: "watching"; ruleset?: string | null; house?: string | null };

export type AppEvent = { type: "opened"; campaign: CampaignInfo } | { type: "session"; event: SessionEvent };
