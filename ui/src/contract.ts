// The contract between the UI and the app layer, generated from the Rust types by
// `houserule ui-contract ui/src/contract.ts`. Do not edit: a test fails when it is stale.

/** Joining from a browser: a player with the token of their join link, or the GM with the secret the server printed; nothing from the desktop, or to ask who this connection is. */
export type Join = {
  invite?: string | null;
  secret?: string | null;
};

/** Who joined, and the campaign in play. */
export type Joined = {
  role: Role;
  campaign?: CampaignInfo | null;
  /** The campaign file, where the front end may show it. */
  file?: string | null;
  /** The front end the caller came through (`desktop`, `server`, `matrix`). */
  front: string;
  /** Whether it is on the GM's own computer (it reaches their files and network). */
  local: boolean;
  /** The last event this person has read up to (`mark_read`), if they have looked before. */
  last_read?: number | null;
};

/** gm, player:NAME, or public */
export type Role = string;

/** Public facts about a campaign. */
export type CampaignInfo = {
  id: string;
  name: string;
  ruleset: RulesetInfo;
  /** Number of events in the log. */
  events: number;
  /** Hex hash of the last event. */
  head: string;
  /** Hex SHA-256 of the dice seed in force (the seed itself stays secret until revealed). */
  seed_commitment: string;
};

/** Identity of a ruleset. */
export type RulesetInfo = {
  id: string;
  name: string;
  version: string;
};

/** No parameters. */
export type Nothing = Record<string, never>;

/** A ruleset a campaign can be created on, with the settings a GM may pick. */
export type RulesetChoice = {
  id: string;
  name: string;
  version: string;
  description: string;
  settings: Record<string, SettingSpec>;
};

/** A setting a GM can change when creating a campaign (and house rules can override). */
export type SettingSpec = {
  type: SettingType;
  default: unknown;
  label?: string | null;
  help?: string | null;
  min?: number | null;
  max?: number | null;
  options?: string[];
};

/** The type of a setting. */
export type SettingType = "int" | "bool" | "text" | "choice";

/** A campaign to create (`path`: where the desktop app saves it; the server plays its own file). */
export type Create = {
  ruleset: string;
  settings?: Record<string, unknown>;
  name?: string;
  path?: string | null;
};

/** A campaign file to open. */
export type Open = {
  path: string;
};

/** Whose view or actions: `as` is a role (`player:NAME`); the GM may name anyone. */
export type As = {
  as?: string | null;
};

/** The table as one viewer sees it. */
export type View = {
  viewer: Role;
  campaign: CampaignInfo;
  round: number;
  settings: Record<string, unknown>;
  pools: Record<string, PoolView>;
  entities: Record<string, EntityView>;
  vars: Record<string, unknown>;
  /** The players the GM lets type in their own dice over the network (public). */
  typed_dice?: string[];
  /** The turn tracker, with only the participants the viewer may see. */
  turns?: TurnsView;
  /** The decks of cards, as the viewer may see them (see [`crate::deck_view`]). */
  decks?: DeckView[];
  /** The scenes the viewer may see (a player: the one shown, with only the tokens they may see). */
  scenes?: SceneView[];
  /** The handouts the viewer may read (the GM: every one), in the order they were written. */
  handouts?: HandoutView[];
};

/** A pool as one viewer sees it. */
export type PoolView = {
  label?: string | null;
  visibility: Visibility;
  /** The total, when the viewer may see it. */
  count?: number | null;
  /** Counts per kind, for pools of several kinds the viewer may see. */
  counts?: Record<string, number> | null;
  cap?: number | null;
  floor: number;
  /** For a hidden pool: whether it is empty (all anyone may learn). */
  empty?: boolean | null;
};

/** Who may see a value. Ordered from most to least open: combining two visibilities (an owner-only field on a GM-only entity) takes the stricter one. */
export type Visibility = "public" | "owner" | "gm" | "hidden";

/** An entity as one viewer sees it. */
export type EntityView = {
  id: string;
  kind: string;
  name: string;
  owner?: string | null;
  fields: Record<string, unknown>;
  traits: Trait[];
  pools: Record<string, PoolView>;
  /** The digest of its portrait (the `picture` call gives it to whoever sees the entity). */
  portrait?: string | null;
};

/** A trait. */
export type Trait = {
  name: string;
  rating?: number | null;
  category?: string | null;
  state?: TraitState;
  uses?: number;
  tags?: string[];
  visibility?: Visibility;
  note?: string | null;
};

/** Whether a trait can be used. */
export type TraitState = "active" | "sealed" | "spent";

/** The turn tracker as one viewer sees it: a participant the viewer may not see is left out, and so is their turn while it lasts (`current` is then empty). */
export type TurnsView = {
  /** An encounter is running. */
  active: boolean;
  /** The round of the encounter (1 for the first), 0 outside one. */
  round: number;
  /** The participants the viewer may see, in turn order. */
  order: SeatView[];
  /** Whose turn it is, when the viewer may see them. */
  current?: string | null;
  /** It is the turn of someone the viewer may not see (told only where the GM shows hidden participants as "someone"). */
  someone_now?: boolean;
  /** Whether a participant the viewer may not see is shown as "someone" (the GM's choice). */
  someone_shown?: boolean;
};

/** One participant in the turn order, as a viewer sees it. */
export type SeatView = {
  /** The entity's id; empty for someone the viewer may not see, shown in their place because the GM chose so (then `someone` is set and the key is left out). */
  id: string;
  /** A participant the viewer may not see, shown only as "someone". */
  someone?: boolean;
  /** It is this participant's turn. */
  now?: boolean;
  /** What the order sorts on, highest first. */
  key: number[];
  /** Has taken a turn this round. */
  acted: boolean;
  /** Holds their turn. */
  held: boolean;
};

/** One deck, as a viewer sees it. */
export type DeckView = {
  name: string;
  /** Every card of the deck, in the deck's own order. */
  cards: string[];
  /** How many cards are in the draw pile (its order is nobody's to see). */
  pile: number;
  /** The discard pile, oldest first. */
  discard: string[];
  /** The hands of the holders the viewer may see. */
  hands: HandView[];
};

/** One holder's cards of a deck, as a viewer sees them. */
export type HandView = {
  /** The holder's entity id. */
  holder: string;
  /** The cards held face up. */
  up: string[];
  /** The cards held face down, when the viewer may see them (else empty). */
  down: string[];
  /** How many cards are held face down. */
  down_count: number;
};

/** A scene as a viewer sees it. */
export type SceneView = {
  id: string;
  name: string;
  grid: Grid;
  /** The background image (the GM's view only). */
  background?: Background | null;
  /** The key of the background as this viewer may see it, fog blacked out (a player's view of a scene with a background): changes whenever the map or the fog does. */
  map_key?: string | null;
  /** The fog and its revealed areas. */
  fog: Fog;
  /** The tokens the viewer may see, in the order they were placed. */
  tokens: TokenView[];
  /** The scene shown to the players. */
  shown: boolean;
  /** Players may move any token they see. */
  players_move_any: boolean;
};

/** A scene's grid. */
export type Grid = {
  kind: GridKind;
  /** A cell's size in background pixels (a square's side; a hex's width, flat side to flat side). */
  size: number;
  unit: Unit;
  measure: Measure;
};

/** The shape of the cells. */
export type GridKind = "square" | "hex";

/** What one cell stands for: `1 inch`, `1 area`, `5 ft`. */
export type Unit = {
  /** The unit's name (`inch`, `area`, `ft`). */
  name: string;
  /** How many of the unit one cell is. */
  per_cell: number;
};

/** How distance is counted on a square grid (a hex grid always counts hex steps). */
export type Measure = "chebyshev" | "alternate" | "euclid";

/** A scene's background image: the digest of the stored image and its size in pixels. */
export type Background = {
  /** The image's digest (hex SHA-256), as the campaign file stores it. */
  digest: string;
  width: number;
  height: number;
};

/** A scene's fog. */
export type Fog = {
  /** The map is fogged (everything not revealed is hidden from players). */
  on?: boolean;
  /** Revealed cells. */
  cells?: Cell[];
  /** Revealed polygons, each a list of corners in grid units. */
  polygons?: [number, number][][];
};

/** A cell: (column, row) on a square grid, axial (q, r) on a hex grid. */
export type Cell = [number, number];

/** A token as a viewer sees it. */
export type TokenView = {
  id: string;
  /** The entity it stands for. */
  entity?: string | null;
  /** What to call it: the entity's name, or a free marker's label. */
  name: string;
  /** The player who owns its entity. */
  owner?: string | null;
  cell: Cell;
  size: number;
  /** The picture it shows: its own, else its entity's portrait. */
  image?: string | null;
  /** Hidden from the players (only the GM, and the token's owner, see it). */
  hidden: boolean;
  /** Players other than its owner do not see it: it is hidden, or its entity is not public. */
  unseen?: boolean;
};

/** A handout as one viewer sees it. */
export type HandoutView = {
  id: string;
  title: string;
  text: string;
  /** The picture's digest (the `picture` call gives it to whoever may read the handout). */
  picture?: string | null;
  /** Revealed to everyone. */
  everyone: boolean;
  /** The players it is revealed to by name: all of them for the GM, only the viewer for a player. */
  readers: string[];
};

/** An action a viewer may take, as a form. */
export type ActionForm = {
  name: string;
  label: string;
  help?: string | null;
  group?: string | null;
  who: Permit[];
  params: ParamForm[];
  /** What a person rolls by hand for this action, if anything (the form offers to type it in). */
  rolls?: string | null;
  /** The rules can say the chance of success before rolling (the `odds` call). */
  odds?: boolean;
  /** The turn tracker's control this action is (a button beside the turn order). */
  turn?: TurnControl | null;
};

/** Who may take an action. */
export type Permit = "gm" | "player" | "owner";

/** A parameter of an action form. */
export type ParamForm = {
  name: string;
  /** The values the rules allow here, when the set is closed. */
  choices?: Choices | null;
  type: ParamType;
  label?: string | null;
  help?: string | null;
  /** May be left out; scripts then see `()` (or `default`). */
  optional?: boolean;
  default?: unknown;
  min?: number | null;
  max?: number | null;
  options?: string[];
  /** For `entity`: the entity kind required. */
  kind?: string | null;
  /** For `entity`: any of these kinds. */
  kinds?: string[];
  /** The rule a refusal of this parameter names, such as "TRAITS" or "MAD". */
  rule?: string | null;
  /** For `trait`: the parameter (or record field) that names the entity owning the trait. */
  entity?: string | null;
  /** For `trait`: only traits of this category. */
  category?: string | null;
  /** For `list` and `map`: the item type. */
  of?: ItemSpec | null;
  /** For `record`: the fields. */
  fields?: Record<string, ParamSpec>;
  min_items?: number | null;
  max_items?: number | null;
  max_len?: number | null;
  /** A secret value: in the log, only the GM and the player who gave it see it. */
  secret?: boolean;
  /** Secret (as `secret`) only while another parameter beside it holds one of some values: a field's name, say, secret while the field is set for the GM alone. */
  secret_when?: OnlyWhen | null;
  /** Applies only while another parameter beside it holds one of some values (a form shows it only then; otherwise it is as if left out, and a value given for it is refused). */
  only_when?: OnlyWhen | null;
};

/** What a form may offer for one parameter, given the table and who is asking. */
export type Choices = {
  from: "options";
  values: string[];
} | {
  from: "entities";
  values: EntityChoice[];
} | {
  from: "players";
  values: string[];
} | {
  from: "traits";
  entity: string;
  by_entity: Record<string, string[]>;
};

/** An entity a form may offer. */
export type EntityChoice = {
  id: string;
  name: string;
};

/** The type of a parameter. */
export type ParamType = "int" | "bool" | "text" | "choice" | "dice" | "entity" | "player" | "trait" | "pool" | "list" | "map" | "record";

/** The item type of a list or map: a bare type name, or a full spec. */
export type ItemSpec = ParamType | ParamSpec;

/** A declared parameter. */
export type ParamSpec = {
  type: ParamType;
  label?: string | null;
  help?: string | null;
  /** May be left out; scripts then see `()` (or `default`). */
  optional?: boolean;
  default?: unknown;
  min?: number | null;
  max?: number | null;
  options?: string[];
  /** For `entity`: the entity kind required. */
  kind?: string | null;
  /** For `entity`: any of these kinds. */
  kinds?: string[];
  /** The rule a refusal of this parameter names, such as "TRAITS" or "MAD". */
  rule?: string | null;
  /** For `trait`: the parameter (or record field) that names the entity owning the trait. */
  entity?: string | null;
  /** For `trait`: only traits of this category. */
  category?: string | null;
  /** For `list` and `map`: the item type. */
  of?: ItemSpec | null;
  /** For `record`: the fields. */
  fields?: Record<string, ParamSpec>;
  min_items?: number | null;
  max_items?: number | null;
  max_len?: number | null;
  /** A secret value: in the log, only the GM and the player who gave it see it. */
  secret?: boolean;
  /** Secret (as `secret`) only while another parameter beside it holds one of some values: a field's name, say, secret while the field is set for the GM alone. */
  secret_when?: OnlyWhen | null;
  /** Applies only while another parameter beside it holds one of some values (a form shows it only then; otherwise it is as if left out, and a value given for it is refused). */
  only_when?: OnlyWhen | null;
};

/** The condition of a parameter that belongs to some choices only: it applies while the parameter `param` beside it (a choice, or a yes/no) holds one of `is`, and `param` itself applies. `is` holds options of the choice as the manifest spells them, or `true`/`false`. */
export type OnlyWhen = {
  /** The parameter beside this one whose value decides. */
  param: string;
  /** The values of `param` this parameter is for. */
  is: unknown[];
};

/** The controls a turn tracker offers, each taken by an action the ruleset names. */
export type TurnControl = "start" | "next" | "hold" | "round" | "end";

/** A page of the log: the newest `limit` events with `from <= seq < before` (defaults: from 1, before none — up to the latest —, 200 events). Older pages: `before` the first one held. */
export type LogPage = {
  as?: string | null;
  from?: number;
  before?: number | null;
  limit?: number;
};

/** One event as a viewer sees it. */
export type LogEntry = {
  seq: number;
  /** Hex hash of this event (what `houserule verify --event N --hash H` checks). */
  hash: string;
  at: string;
  kind: EventKind;
  actor?: Role | null;
  action?: string | null;
  detail?: unknown;
  items: LogItem[];
  /** The undo event that took this one back: it stays in the log, voided. */
  voided_by?: number | null;
};

/** What an event records. */
export type EventKind = "created" | "action" | "reload" | "reveal" | "migrated" | "permission" | "undo" | "correction" | "post";

/** One log item as a viewer sees it: the body, or only a public label. */
export type LogItem = {
  visibility: Visibility;
} & ({
  type: "param";
  name: string;
  value: unknown;
} | {
  type: "roll";
  roll: Roll;
} | {
  type: "change";
  change: Change;
} | {
  type: "say";
  text: string;
} | {
  type: "result";
  value: unknown;
} | {
  type: "post";
  post: Post;
}) | {
  visibility: Visibility;
  type: HiddenItem;
  /** What may be known of an item the viewer may not see. */
  hidden: string;
};

/** A complete roll: the expression, every die, and the result. */
export type Roll = {
  expr: string;
  label?: string | null;
  source: RollSource;
  terms: TermRoll[];
  total: number;
  /** Total successes, when any term counts successes. */
  successes?: number | null;
  /** The dialect the expression was read in (left out for Houserule's own). */
  dialect?: Dialect;
};

/** Where the faces of a roll came from. */
export type RollSource = {
  generated: {
    counter: number;
    entropy?: Entropy | null;
  };
} | "forced";

/** 32 random bytes as 64 hex digits */
export type Entropy = string;

/** One term of a rolled expression: a group of dice or a constant. With `*`, `/` and brackets the terms still list every die, and `value` is what the term brings to its own bracket (the roll's `total` is the whole expression worked out). */
export type TermRoll = {
  /** The term as written, with its sign: `+4d6kh3`, `-2`. */
  term: string;
  dice?: Die[];
  /** What the term adds to the total (negative for a subtracted term). */
  value: number;
  successes?: number | null;
};

/** One die as rolled. */
export type Die = {
  sides: Sides;
  face: number;
  /** False when a keep/drop modifier dropped this die. */
  kept?: boolean;
  /** This die met the explode condition and caused another die to be rolled. */
  exploded?: boolean;
  /** This die was added by an explosion. */
  bonus?: boolean;
  /** Set when the term counts successes. */
  success?: boolean | null;
  /** What the die counts for when that is not its face: raised by `min`, lowered by `max`, one less on a penetrating extra die, the whole chain on a compounding die. */
  value?: number | null;
  /** This face was rerolled (it counts for nothing; the next die replaces it). */
  rerolled?: boolean;
  /** This face was added into the compounding die before it (it counts through that die). */
  compounded?: boolean;
  /** This die met the term's failure condition. */
  failure?: boolean;
  /** This face is in the term's critical range (`crit`, Roll20's `cs`). */
  critical?: boolean;
  /** This face is in the term's fumble range (`fumble`, Roll20's `cf`). */
  fumble?: boolean;
  /** Marks a ruleset put on the die, such as "critical" or "complication". */
  marks?: string[];
};

/** The kind of die: d6, d20, dF (Fudge) or d% (percentile) */
export type Sides = string;

/** How the forms the two big VTTs disagree on are read. */
export type Dialect = "houserule" | "roll20";

/** One change to the table. */
export type Change = {
  op: "create";
  entity: Entity;
} | {
  op: "remove";
  id: string;
} | {
  op: "rename";
  id: string;
  name: string;
} | {
  op: "set_owner";
  id: string;
  owner?: string | null;
} | {
  op: "set_visibility";
  id: string;
  visibility: Visibility;
} | {
  op: "field";
  entity: string;
  field: string;
  value?: unknown;
  visibility: Visibility;
} | {
  op: "trait";
  entity: string;
  trait: Trait;
} | {
  op: "remove_trait";
  entity: string;
  name: string;
} | {
  op: "pool";
  pool: PoolRef;
  before: Record<string, number>;
  after: Record<string, number>;
} | {
  op: "define_pool";
  pool: PoolRef;
  def: Pool;
} | {
  op: "remove_pool";
  pool: PoolRef;
} | {
  op: "var";
  name: string;
  value?: unknown;
  visibility: Visibility;
} | {
  op: "round";
  round: number;
} | {
  op: "setting";
  key: string;
  value: unknown;
} | {
  op: "rules";
  sources: Record<string, string>;
} | {
  op: "typed_dice";
  player: string;
  allowed: boolean;
} | {
  op: "someone_in_turns";
  shown: boolean;
} | {
  op: "encounter";
  active: boolean;
  round: number;
} | {
  op: "seat";
  entity: string;
  seat?: Seat | null;
} | {
  op: "turn";
  entity?: string | null;
} | {
  op: "deck";
  deck: string;
  part: DeckPart;
} | {
  op: "scene";
  scene: string;
  head?: SceneHead | null;
} | {
  op: "show_scene";
  scene?: string | null;
} | {
  op: "token";
  scene: string;
  id: string;
  token?: Token | null;
} | {
  op: "moved";
  scene: string;
  token: string;
  round: number;
  path: Cell[];
} | {
  op: "moves";
  scene: string;
  moves: Move[];
} | {
  op: "fog";
  scene: string;
  fog: Fog;
} | {
  op: "picture";
  digest: string;
  picture?: Picture | null;
} | {
  op: "portrait";
  entity: string;
  picture?: string | null;
} | {
  op: "handout";
  id: string;
  handout?: Handout | null;
};

/** One entity on the table. */
export type Entity = {
  id: string;
  kind: string;
  name: string;
  owner?: string | null;
  visibility?: Visibility;
  fields?: Record<string, Field>;
  traits?: Trait[];
  pools?: Record<string, Pool>;
  /** The digest of its portrait, a picture on the table (set by the GM; seen by whoever sees the entity, on its card and on its tokens that have no picture of their own). */
  portrait?: string | null;
};

/** A value with its visibility. */
export type Field = {
  value: unknown;
  visibility?: Visibility;
};

/** A pool of tokens. */
export type Pool = {
  label?: string | null;
  counts: Record<string, number>;
  floor?: number;
  cap?: number | null;
  visibility?: Visibility;
};

/** A pool: NAME (a table pool) or ENTITY.NAME */
export type PoolRef = string;

/** One participant's place in the turn order. */
export type Seat = {
  /** What the order sorts on, highest first, compared element by element (an initiative total `[14]`, an action card `[13, 4]` for the King of spades). */
  key?: number[];
  /** Has taken a turn this round. */
  acted?: boolean;
  /** Holds (delays) their turn, to act later when they choose. */
  held?: boolean;
};

/** One change to a deck: each part is set whole, so the log is the state and undo is a diff. */
export type DeckPart = {
  part: "define";
  cards?: string[] | null;
} | {
  part: "pile";
  cards: string[];
} | {
  part: "discard";
  cards: string[];
} | {
  part: "hand";
  holder: string;
  face_up: boolean;
  cards: string[];
};

/** What the GM sets on a scene as a whole. */
export type SceneHead = {
  name: string;
  background?: Background | null;
  grid: Grid;
  /** Every player may move every token they may see (not only their own). */
  players_move_any?: boolean;
};

/** A token on a scene. */
export type Token = {
  /** The entity it stands for; none for a free marker. */
  entity?: string | null;
  /** A free marker's label (a token of an entity shows the entity's name). */
  label?: string | null;
  /** The cell of its top-left corner (its only cell when its size is 1). */
  cell: Cell;
  /** How many cells it spans across (and down). */
  size?: number;
  /** The digest of its image, if it has its own. */
  image?: string | null;
  /** Hidden by the GM: no player sees it (but its owner). */
  hidden?: boolean;
};

/** One move a token made: its path (the first cell where it stood) and the round it was in. */
export type Move = {
  token: string;
  round: number;
  path: Cell[];
};

/** What a picture is (its bytes are in the campaign file, under its digest). */
export type Picture = {
  /** The name it was imported under (its file name, for the GM). */
  name: string;
  format: Format;
  width: number;
  height: number;
  /** Its size in bytes. */
  bytes: number;
};

/** The image formats Houserule keeps. */
export type Format = "png" | "jpeg" | "webp";

/** One handout. */
export type Handout = {
  title: string;
  /** Light Markdown (paragraphs, emphasis, lists, headings, links); front ends render it with HTML turned off. */
  text?: string;
  /** The digest of a picture the campaign holds. */
  picture?: string | null;
  /** Revealed to everyone (players and a public thread alike). */
  everyone?: boolean;
  /** The players it is revealed to by name (besides everyone, when it is). */
  readers?: string[];
};

/** A post as the log keeps it. */
export type Post = {
  /** As typed, in the UI's light Markdown. */
  text: string;
  /** In character: the entity (a character the author plays; the GM may speak for anyone). Absent: out of character. */
  character?: string | null;
  /** The character's name when it was written. */
  character_name?: string | null;
  to: Audience;
  /** The post this one replaces (an edit by its author; the original stays in the log). */
  edits?: number | null;
};

/** everyone, gm, or player:NAME (a whisper) */
export type Audience = string;

/** The `type` of an item the viewer may not see. */
export type HiddenItem = "hidden";

/** What to read of the table: the log from event `from` on (without it, its newest `limit` events), for the viewer `as` names (the GM may name anyone). */
export type TableSince = {
  as?: string | null;
  from?: number | null;
  limit?: number;
};

/** What a viewer sees now: the view, the action forms and the log entries asked for, all as of the same event. */
export type TableNow = {
  view: View;
  actions: ActionForm[];
  log: LogEntry[];
};

/** An action's form as it stands, for its odds. */
export type OddsOf = {
  as?: string | null;
  action: string;
  params?: Record<string, unknown>;
};

/** The odds of an action as the form stands. */
export type FormOdds = {
  /** What is about to be rolled, each with its chance (none while the form is incomplete). */
  lines: Chance[];
  /** Why the rules would refuse the action as it stands (their own words), if they would. */
  refused?: string | null;
};

/** One line of a form's odds. */
export type Chance = {
  label: string;
  /** The dice expression, when the engine worked the chance out. */
  expr?: string | null;
  /** The total to meet. */
  target?: number | null;
  /** The chance of meeting the target (or of success, from the ruleset). */
  chance?: number | null;
  /** A 95% confidence interval for `chance`, when simulated. */
  interval?: [number, number] | null;
  /** The average total, when the engine worked it out. */
  mean?: number | null;
  method: ChanceMethod;
};

/** How a chance was found. */
export type ChanceMethod = "exact" | "simulation" | "ruleset";

/** An action: its parameters as the user typed them (text, or JSON for lists and records), dice rolled by hand, the acting side's entropy, and a post that carries it. */
export type ActRequest = {
  /** Whose action (the GM may act as a player: `player:NAME`); none: the caller's own. */
  as?: string | null;
  action: string;
  params?: Record<string, unknown>;
  dice?: Dice | null;
  /** 32 fresh random bytes from the acting side's own device, mixed into every roll of the action, so the holder of the seed cannot foresee it (players' browsers must send it). */
  entropy?: Entropy | null;
  /** A post that carries the action (its text, speaker and audience), logged with it. */
  post?: PostDraft | null;
};

/** Dice rolled by hand: a list of faces, or the faces as typed ("4, 6, +, -"). */
export type Dice = number[] | string;

/** A post as someone writes it: the text, who speaks (a character, by id or name; none: out of character) and whom it is for (`everyone` when absent, `gm`, or `player:NAME`). */
export type PostDraft = {
  text: string;
  character?: string | null;
  to?: string | null;
};

/** The outcome of an action, as the actor may see it. */
export type Acted = {
  event: LogEntry;
  /** What the action's function returned. */
  result: unknown;
  /** What the scripts printed (for homebrewers; not part of the log). */
  script_log?: string[];
};

/** A post to write, as the caller (the GM may write as `as`, a player). */
export type PostRequest = {
  as?: string | null;
  /** Fresh random bytes from the writer's device, mixed into the dice the post rolls as it is written (`[[2d6]]`, `/r 1d20`), as an action's are. */
  entropy?: Entropy | null;
  text: string;
  character?: string | null;
  to?: string | null;
};

/** A new text for one's own post `seq`. */
export type EditPost = {
  as?: string | null;
  seq: number;
  text: string;
};

/** How far the caller has read the log. */
export type ReadTo = {
  seq: number;
};

/** A log entry to turn into a forum post, and the markup (`markdown` or `bbcode`). */
export type ForumOf = {
  seq: number;
  format?: string;
};

/** How far back an undo goes: with no `to`, the latest action not yet undone. */
export type UndoTo = {
  to?: number | null;
};

/** A correction and the GM's reason for it. */
export type Correct = {
  correction: Correction;
  reason: string;
};

/** A value the GM sets by hand. */
export type Correction = {
  what: "field";
  entity: string;
  field: string;
  value?: unknown;
} | {
  what: "pool";
  pool: string;
  count: number;
  kind?: string | null;
} | {
  what: "trait";
  entity: string;
  name: string;
  rating?: number | null;
  state?: TraitState | null;
  remove?: boolean;
};

/** A player's permission to type in their own dice. */
export type TypedDice = {
  player: string;
  allowed: boolean;
};

/** Whether players see a participant of the turn order hidden from them as "someone". */
export type SomeoneInTurns = {
  shown: boolean;
};

/** One thing the GM does to the scenes, their tokens and the portraits they show. */
export type SceneOp = {
  op: "create";
  id: string;
  name: string;
  grid?: Grid | null;
  background?: Background | null;
} | {
  op: "update";
  id: string;
  name?: string | null;
  grid?: Grid | null;
  background?: Background | null;
  players_move_any?: boolean | null;
} | {
  op: "remove";
  id: string;
} | {
  op: "show";
  id?: string | null;
} | {
  op: "place";
  scene: string;
  id: string;
  entity?: string | null;
  label?: string | null;
  cell: Cell;
  size?: number | null;
  image?: string | null;
  hidden?: boolean;
} | {
  op: "token";
  id: string;
  hidden?: boolean | null;
  entity?: string | null;
  size?: number | null;
  image?: string | null;
} | {
  op: "portrait";
  entity: string;
  picture?: string | null;
} | {
  op: "remove_token";
  id: string;
} | {
  op: "fog";
  scene: string;
  on?: boolean | null;
  reveal?: Cell[];
  cover?: Cell[];
  polygon?: [number, number][] | null;
  cover_all?: boolean;
};

/** One thing the GM does to the handouts. */
export type HandoutOp = {
  op: "write";
  id?: string | null;
  title: string;
  text?: string;
  /** The digest of a picture the campaign holds. */
  picture?: string | null;
} | {
  op: "reveal";
  id: string;
  everyone?: boolean;
  players?: string[];
} | {
  op: "remove";
  id: string;
};

/** A token's move: its id and its path of cells, the first where it stands. */
export type MoveToken = {
  token: string;
  path: Cell[];
  /** 32 fresh random bytes from the mover's device (hex), for what the move hook rolls (a running die): a player's browser must send them. */
  entropy?: Entropy | null;
};

/** A path to measure on a grid (the ruler). */
export type MeasurePath = {
  grid: Grid;
  path: Cell[];
};

/** A measured path: its length in cells and in the grid's unit, and whether it runs straight. */
export type Measured = {
  cells: number;
  length: number;
  unit: string;
  straight: boolean;
};

/** A picture to import: its file name and its bytes (base64). */
export type ImportPicture = {
  name: string;
  /** The file's bytes, base64 (standard alphabet, padded). */
  data: string;
};

/** A picture imported: its digest, what the table records of it, and the event that added it (none when the campaign already had this very picture). */
export type Imported = {
  digest: string;
  picture: Picture;
  entry?: LogEntry | null;
};

/** Which picture: a digest (the GM), a map key or a token image's digest (a player). */
export type PictureKey = {
  key: string;
};

/** A picture's bytes as the caller may see them. */
export type PictureData = {
  /** `image/png`, `image/jpeg` or `image/webp`. */
  mime: string;
  width: number;
  height: number;
  /** The bytes, base64. */
  data: string;
};

/** A scene drawn as one viewer sees it. */
export type SceneDrawing = {
  /** The scene's name. */
  scene: string;
  width: number;
  height: number;
  /** Each token drawn: its initials, its name and its cell ("F Frody: column 3, row 4"). */
  legend: string[];
  /** The PNG's bytes, base64. */
  data: string;
};

/** A player, by name. */
export type PlayerName = {
  player: string;
};

/** A link just made: the only time its token is seen. */
export type NewInvite = {
  player: string;
  /** Goes after `#join=` in the table's address. */
  token: string;
};

/** A link as the GM sees it later: who it is for, and when it was made and last used. */
export type Invite = {
  player: string;
  created: string;
  last_used?: string | null;
  /** Whether this machine made the link. A link it did not make (planted in the file, or made elsewhere) lets nobody in: the GM makes a new one. */
  made_here: boolean;
};

/** The table being served. */
export type Serving = {
  /** The address players open (join links are this with `#join=TOKEN`). */
  url: string;
  /** Other addresses of this computer the table answers on. */
  also: string[];
  reach: Reach;
  /** When serving started (RFC 3339, UTC). */
  since: string;
  /** Whether the GM can stop it from the table (not when `houserule serve` runs it). */
  stoppable: boolean;
  /** Whether the GM can open it to the network, or close it to other computers again, while it runs (a table started on this computer only). */
  switchable: boolean;
  /** Connections open now, oldest first. */
  connected: Visitor[];
  /** Something the GM should know (a busy port, no network address found). */
  note?: string | null;
};

/** Where the table is offered. */
export type Reach = "network" | "this_computer";

/** Someone connected to the table. */
export type Visitor = {
  /** The connection's number (for this run of the server). */
  id: number;
  /** Who joined (`player:ann`, `gm`); none while the page has not joined yet. */
  who?: string | null;
  /** The address the connection comes from. */
  from: string;
  /** When it connected (RFC 3339, UTC). */
  since: string;
};

/** How to start serving. */
export type HostStart = {
  reach?: Reach;
  /** The port; without it the last one used, else [`DEFAULT_PORT`], else any free one. */
  port?: number | null;
};

/** Opening a running table to the network, or closing it to other computers. */
export type SetReach = {
  reach: Reach;
};

/** The campaign's room and its referee. */
export type Online = {
  /** What kind of network (`matrix`). */
  network: string;
  homeserver: string;
  /** The account the referee speaks with (the GM's). */
  user: string;
  room: string;
  /** Who sits where, by account. */
  seats: OnlineSeat[];
  /** Whether the referee answers the room now. */
  refereeing: boolean;
  /** Since when it does (RFC 3339, UTC). */
  since?: string | null;
  /** The latest trouble (an unreachable homeserver, an encrypted room), until it clears. */
  problem?: string | null;
};

/** An account seated as a player. */
export type OnlineSeat = {
  user: string;
  player: string;
  /** The direct room where what only this player may see is sent. */
  direct: string;
};

/** Linking the campaign in play to a room, logged in as the GM's account. */
export type OnlineLink = {
  /** The homeserver's address, e.g. `https://matrix.example.org`. */
  homeserver: string;
  /** The GM's account, which the referee speaks with, e.g. `@gm:example.org`. */
  user: string;
  /** The account's password: used once to log in, kept nowhere. */
  password: string;
  /** The room to play in (its id or alias); none: the one linked already, else a new room. */
  room?: string | null;
};

/** Giving a player's seat to an account. */
export type OnlineInvite = {
  /** The player's account, e.g. `@ann:example.org`. */
  user: string;
  /** The player it plays as (`ann` or `player:ann`). */
  player: string;
};

/** Where to write a copy of the campaign, and for whom (`player`: a player's copy; none: in full). */
export type ShareCopy = {
  path: string;
  player?: string | null;
};

/** What `share` wrote. */
export type ShareReport = {
  path: string;
  /** The player the copy is for; none for a full copy. */
  for_role?: Role | null;
  events: number;
  head: string;
  /** Items left out of a player's copy (their digests remain). */
  redacted_items: number;
};

/** Whose copy to download: a player's (by name), or none for a full copy. */
export type CopyFor = {
  player?: string | null;
};

/** A copy of the campaign to save in a browser: the file's suggested name, what it holds, and its bytes (base64). */
export type Download = {
  name: string;
  report: ShareReport;
  data: string;
};

/** The result of verifying a file. */
export type VerifyReport = {
  ok: boolean;
  events: number;
  /** Hex hash of the last event that checked out. */
  head: string;
  /** Generated rolls recomputed from a known seed. */
  rolls_recomputed: number;
  /** Rolls typed in or given in advance (marked forced; not recomputable). */
  rolls_forced: number;
  /** Generated rolls since the last reveal, waiting for their seed to be disclosed. */
  rolls_pending: number;
  /** Secret rolls this copy cannot see: counted (no counter is skipped), not recomputed. */
  rolls_secret: number;
  checks: Check[];
};

/** The result of one check. */
export type Check = {
  /** The check's name: `integrity`, `schema`, `caps`, `chain`, `replay`, `dice`, `rules` or `pictures` (the checks every file gets), or `open`, `event` or `against` (the command line's). */
  name: string;
  ok: boolean;
  detail: string;
  /** The first event the check failed at. */
  event?: number | null;
};

/** A player removed from the table. */
export type Removed = {
  /** Whether they had a join link (it is ended now). */
  link_ended: boolean;
  /** How many of their connections were closed. */
  connections: number;
};

/** A parsed and validated `plugin.toml`. */
export type Manifest = {
  /** Lowercase id: letters, digits, `-` and `_`. */
  id: string;
  name: string;
  version: string;
  /** The plugin API version the ruleset was written for. */
  api: number;
  /** The entry script, in the plugin folder. */
  entry: string;
  /** More scripts, merged after the entry in this order. Every function in them can be replaced by a house rule. */
  scripts?: string[];
  description?: string;
  settings?: Record<string, SettingSpec>;
  kinds?: Record<string, KindSpec>;
  /** The table's own variables (`t.set_var`), declared for their labels, or as bookkeeping. */
  vars?: Record<string, FieldSpec>;
  pools?: Record<string, PoolSpec>;
  actions?: Record<string, ActionSpec>;
  hooks?: Hooks;
  /** The grid a new scene gets, and how the rules measure distance on it. */
  scene?: SceneDefaults;
};

/** An entity kind the ruleset puts on the table. */
export type KindSpec = {
  label?: string | null;
  /** Default visibility of entities of this kind. */
  visibility?: Visibility;
  /** Declared fields, with their visibility (undeclared fields are public). */
  fields?: Record<string, FieldSpec>;
  /** Pools every entity of this kind gets. */
  pools?: Record<string, PoolSpec>;
};

/** A declared field. */
export type FieldSpec = {
  label?: string | null;
  visibility?: Visibility;
  help?: string | null;
  /** The rules' own bookkeeping (a serial number, the last roll's context): kept on the table for the scripts, never shown at the table. */
  bookkeeping?: boolean;
};

/** A declared pool. */
export type PoolSpec = {
  label?: string | null;
  initial?: Initial;
  /** Take the initial total from this int setting instead. */
  initial_setting?: string | null;
  /** Token kinds; none means one kind, `token`. */
  kinds?: string[];
  floor?: number;
  cap?: number | null;
  /** Take the cap from this int setting instead. */
  cap_setting?: string | null;
  visibility?: Visibility;
};

/** Initial counts of a pool: a total for a single-kind pool, or counts per kind. */
export type Initial = number | Record<string, number>;

/** A declared action. */
export type ActionSpec = {
  label?: string | null;
  help?: string | null;
  /** A heading to group actions under in a form list. */
  group?: string | null;
  who?: Permit[];
  /** The entity parameter whose owner may act under `owner`. */
  owner_param?: string | null;
  /** The script function to call; defaults to the action name. */
  function?: string | null;
  /** A script function `(t, p)` that says, without rolling, what the action is about to roll and what it needs (see [`crate::chance`]): the form shows the chance of success. */
  odds?: string | null;
  /** The dice a person rolls by hand for this action, as players would say it ("a d6 per trait", "4dF"): its form offers to type them in. Absent, the action rolls nothing a person could roll (or nothing at all), and its form has no field for dice. */
  rolls?: string | null;
  params?: Record<string, ParamSpec>;
  /** Why this action cannot be undone (it told players something that cannot be untold, say); absent, the GM may undo it like any other. */
  not_undoable?: string | null;
  /** What this action does to the turn order, if it is one of the tracker's controls: the turn tracker beside the table offers it as a button (its form stays in the list too). */
  turn?: TurnControl | null;
};

/** Script functions the engine calls at fixed points. */
export type Hooks = {
  /** `fn(t)` when a campaign is created, after settings and pools are in place. */
  setup?: string | null;
  /** `fn(t, action, params)` before every action; throw to refuse it. */
  before_action?: string | null;
  /** `fn(t, roll)` after every roll a script makes. */
  after_roll?: string | null;
  /** `fn(t, round)` when a round ends: a script's `t.end_round()`, or the turn tracker passing the turn after everyone has acted. `round` is the table's new round counter. */
  round_end?: string | null;
  /** `fn(t, id)` when it becomes a participant's turn in the turn tracker. */
  turn_start?: string | null;
  /** `fn(t, id)` when a participant's turn in the turn tracker ends. */
  turn_end?: string | null;
  /** `fn(t, m)` after a token moves by a `move` call (not a script's `t.move_token`), in the same transaction: `m` is the move (`token`, `entity`, `path`, `length`, `straight`); throw to refuse it, and nothing is committed. */
  move?: string | null;
  /** Moments of play the ruleset's own scripts call a function at (a turn starting, a challenge ending …), for house rules to hook into: each the name of a function the ruleset defines and calls (usually with an empty body), or a name ending in `*` for a family the ruleset calls by name (`knack_*`: a function for every Knack). */
  moments?: string[];
};

/** A ruleset's `[scene]` table: the grid a new scene starts with (the GM may change it). */
export type SceneDefaults = {
  /** `square` or `hex`. */
  grid?: GridKind;
  /** On a square grid: `chebyshev` (every diagonal 1), `alternate` (1-2-1) or `euclid`. */
  measure?: Measure;
  /** The unit one cell stands for (`inch`, `area`, `ft`). */
  unit?: string;
  /** How many of the unit one cell is. */
  per_cell?: number;
};

/** The campaign's house rules, and the ruleset scripts they may replace functions of. */
export type HouseRulesState = {
  files: HouseRuleText[];
  /** The ruleset's own scripts (read-only in the editor; copy a function into a house rule to change it). */
  ruleset_files: HouseRuleText[];
  /** The house rules the GM keeps secret (by name; a name may be marked before it is saved). */
  secret?: string[];
};

/** A house-rule file with its text, for the editor. */
export type HouseRuleText = {
  name: string;
  text: string;
  functions: HouseFunction[];
};

/** A function a house rule defines, and what it does. */
export type HouseFunction = {
  file: string;
  name: string;
  arity: number;
  /** Where its body starts in the file. */
  line: number;
  column: number;
  /** It replaces the ruleset's function of the same name and arity (otherwise it is new). */
  replaces: boolean;
  effect: HouseEffect;
  /** The hook it is: an engine hook (`round_end`) or a moment of the manifest (`on_turn_start`, `knack_*`). */
  hook?: string | null;
  /** For a function that replaces nothing: the ruleset function with the nearest name, as `name/arity`, when it is near enough to be a slip. */
  nearest?: string | null;
  /** Why it probably does not do what was meant (every unused function has one). */
  warning?: string | null;
};

/** What a house-rule function does to the rules. */
export type HouseEffect = "wraps" | "replaces" | "adds" | "unused";

/** A house rule to save. */
export type SaveHouseRule = {
  name: string;
  text: string;
  /** Keeps the rule the GM's alone (or not) from this save on: players are told nothing of a secret house rule, not even its name. Left out: as it was. */
  secret?: boolean | null;
};

/** What a reload changed. */
export type ReloadReport = {
  /** The reload event. */
  seq: number;
  hash: string;
  ruleset: RulesetInfo;
  /** Files added, changed or removed, as `ruleset/rules.rhai` or `house/boss.rhai`. */
  changed: string[];
  /** Digest of everything now in force (ruleset and house rules). */
  digest: string;
  /** Settings whose value changed. */
  settings: Record<string, unknown>;
  /** What each house-rule function now in force does (wraps, replaces, hooks, adds, or nothing, with a warning). */
  house?: HouseFunction[];
};

/** A house rule to remove. */
export type HouseRuleName = {
  name: string;
};

/** A house rule the GM keeps secret, or shares again. */
export type HouseRuleSecret = {
  name: string;
  secret: boolean;
};

/** The rules as one viewer may read them: the ruleset's README and each house rule in force with what it does, and what the last change of the rules changed. A player's holds nothing of a house rule the GM keeps secret. */
export type RuleBook = {
  ruleset: RulesetInfo;
  /** The ruleset's README as its author wrote it (Markdown; untrusted: shown without any HTML of its own), when this computer has the ruleset's folder. */
  readme?: string | null;
  house: HouseRulePage[];
  /** The last change of the rules, if they changed since the campaign began. */
  last_reload?: LastReload | null;
};

/** A house rule in force: its source (read-only) and what each of its functions does. */
export type HouseRulePage = {
  name: string;
  text: string;
  functions: HouseFunction[];
  /** The GM keeps it secret (only ever true in the GM's book). */
  secret: boolean;
};

/** A change of the rules: the event and the files it added, changed or removed. */
export type LastReload = {
  seq: number;
  at: string;
  changes: RuleFileChange[];
};

/** One file a change of the rules added, changed or removed. */
export type RuleFileChange = {
  /** `ruleset` or `house`. */
  layer: string;
  file: string;
  /** `added`, `changed` or `removed`. */
  how: string;
};

/** A balance lab to start. */
export type LabStart = {
  /** Runs on each side (1 to 100,000). */
  times?: number;
  /** The same seed gives the same answer. */
  seed?: number;
};

/** Where a lab in the background stands. */
export type LabProgress = {
  /** Runs asked for on each side. */
  times: number;
  seed: number;
  /** The event the table was copied at. */
  from_event: number;
  /** Running, done, stopped (by the GM), or failed (with the reason). */
  state: LabState;
  /** The ruleset alone first, then with the campaign's house rules (if it has any). */
  sides: LabSide[];
  /** Most turns a run may take; a run still going then is cut off (see [`LabSide::unfinished`]). */
  turn_cap: number;
};

export type LabState = {
  state: "running";
} | {
  state: "done";
} | {
  state: "stopped";
} | {
  state: "failed";
  message: string;
};

/** One side of a lab comparison, as played so far. */
export type LabSide = {
  /** The house-rule files in force (none: the ruleset alone). */
  house_rules: string[];
  /** Runs played so far. */
  runs: number;
  /** How often the scene was won, with a 95% confidence interval (Wilson's). */
  win_rate: number;
  win_interval: [number, number];
  /** Runs cut off at the turn cap ([`LabProgress::turn_cap`]) before the scene ended: they count as not won, but say nothing about winning. */
  unfinished: number;
  /** Every key of the outcomes summed up (`turns` as a histogram, …). */
  outcomes: Record<string, Summary>;
};

/** Summary statistics of one key of many results. */
export type Summary = {
  kind: "flag";
  yes: number;
  rate: number;
} | {
  kind: "number";
  min: number;
  max: number;
  mean: number;
  histogram: [number, number][];
} | {
  kind: "text";
  counts: [string, number][];
};

/** Something a front end shows as it happens. */
export type AppEvent = {
  type: "opened";
  campaign: CampaignInfo;
} | {
  type: "closed";
} | {
  type: "session";
  event: SessionEvent;
} | {
  type: "hosting";
  serving?: Serving | null;
} | {
  type: "online";
  online?: Online | null;
};

/** Something that happened in a session. */
export type SessionEvent = {
  type: "committed";
  seq: number;
  actor: Role;
  action: string;
  readers?: Role | null;
} | {
  type: "reloaded";
  report: ReloadReport;
} | {
  type: "written";
  from: number;
  to: number;
} | {
  type: "reload_failed";
  problems: Diagnostic[];
} | {
  type: "file_gone";
  message: string;
} | {
  type: "watching";
  ruleset?: string | null;
  house?: string | null;
};

/** A problem as shown to users: `file:line:col: message`, with the parts separately. */
export type Diagnostic = {
  file: string;
  line?: number | null;
  column?: number | null;
  /** The manifest field, for manifest problems. */
  field?: string | null;
  message: string;
  /** `file:line:col: message`, as printed. */
  text: string;
};

/** One serialisable error for callers that show errors to users. */
export type ErrorReport = {
  code: ErrorCode;
  message: string;
  /** The parameter at fault, for `bad_param`. */
  param?: string | null;
  /** The script failure with its place, for `refused`, `script_error` and `script_limit`. */
  script?: ScriptError | null;
  /** Problems with their places (rules or a house rule that do not load). */
  diagnostics?: Diagnostic[];
};

/** What kind of failure happened. */
export type ErrorCode = "unknown_action" | "forbidden" | "bad_param" | "refused" | "script_error" | "script_limit" | "sandbox" | "dice" | "storage" | "bad_file" | "player_copy" | "invalid_plugin" | "invalid_house_rule" | "bad_setting" | "unknown_ruleset" | "no_campaign" | "bad_request" | "io" | "exists" | "no_tests" | "disconnected" | "internal";

/** A script failure with its place. */
export type ScriptError = {
  kind: ScriptErrorKind;
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
  column: number;
  message: string;
  /** Script functions the error passed through, outermost first. */
  trace?: string[];
};

/** What kind of failure a script had. */
export type ScriptErrorKind = "syntax" | "runtime" | "refused" | "limit";

/** Each call of the app layer, by name: its parameters and its result. */
export interface Calls {
  /** Who the caller is, and the campaign in play. A browser joins here with its join link's token (a player) or the GM's secret; the server binds the connection to that role for life. */
  hello: { params: Join; result: Joined };
  /** The rulesets a campaign can be created on, with the settings a GM may pick. */
  rulesets: { params: Nothing; result: RulesetChoice[] };
  /** Creates a campaign on a ruleset and plays it. */
  create: { params: Create; result: CampaignInfo };
  /** Opens a campaign file and plays it. */
  open: { params: Open; result: CampaignInfo };
  /** Closes the campaign in play (whatever serves or referees it stops first); whether one was open. The desktop's File → Close. */
  close: { params: Nothing; result: boolean };
  /** Recently opened campaign files, newest first. */
  recent: { params: Nothing; result: string[] };
  /** The campaign in play, if any. */
  campaign: { params: Nothing; result: CampaignInfo | null };
  /** The table as the caller (or, for the GM, the player named by `as`) may see it. */
  view: { params: As; result: View };
  /** The actions the viewer may take now, as forms. */
  actions: { params: As; result: ActionForm[] };
  /** A page of the log as the viewer may see it: the newest `limit` events from `from` on, before `before` (keyset paging: the cost is the page, not the log). */
  log: { params: LogPage; result: LogEntry[] };
  /** What the viewer sees now, in one call: the view, the action forms, and the log since `from` (without `from`, its newest page) — all as of the same event. */
  table: { params: TableSince; result: TableNow };
  /** The chance of success of an action with the parameters typed so far (nothing is rolled or kept): for the forms whose rules can say it (`odds` on the form). */
  odds: { params: OddsOf; result: FormOdds };
  /** Takes an action; the parameters go as typed, the engine parses them. */
  act: { params: ActRequest; result: Acted };
  /** Writes a post: in or out of character, to everyone, to the GM, or a whisper between the GM and one player (nobody else receives it, by any path). */
  say: { params: PostRequest; result: LogEntry };
  /** Replaces the text of one's own post while no action was taken since (the original stays in the log). */
  edit_post: { params: EditPost; result: LogEntry };
  /** Notes that the caller has read the log up to event `seq`; answers the mark kept. */
  mark_read: { params: ReadTo; result: number };
  /** One log entry, as the caller sees it, as a forum post with its verify line. */
  forum_post: { params: ForumOf; result: string };
  /** Takes back the latest action, or every action after event `to`; they stay in the log, voided. */
  undo: { params: UndoTo; result: LogEntry };
  /** Sets a field, a pool count or a trait by hand, with the GM's reason. */
  correct: { params: Correct; result: LogEntry };
  /** Lets a player type in their own dice over the network, or stops it (a public event). */
  allow_typed_dice: { params: TypedDice; result: LogEntry };
  /** Shows players anyone in the turn order hidden from them as "someone" in their place (no name, no id, no initiative), or leaves such participants out of their order (a public event). */
  someone_in_turns: { params: SomeoneInTurns; result: LogEntry };
  /** Prepares the scenes: makes, changes, shows or removes a scene; places, changes, hides or removes a token; turns fog on or off, reveals or covers cells or a polygon. Told to the GM only; undone like an action. */
  scene: { params: SceneOp; result: LogEntry };
  /** Writes, reveals (to everyone or to chosen players), takes back or removes a handout: a title, light Markdown and an optional picture. Until revealed to a player, nothing of it reaches them; undone like an action. */
  handout: { params: HandoutOp; result: LogEntry };
  /** Moves a token along a path of cells (the first where it stands): the GM any token, a player their own (or any they see where the scene allows); the rules' move hook may refuse it, and then nothing is kept. */
  move: { params: MoveToken; result: LogEntry };
  /** Measures a path on a grid as the rules do (the ruler): its length in cells and in the grid's unit, and whether it runs straight. Reads nothing of the table. */
  measure: { params: MeasurePath; result: Measured };
  /** Imports a picture (PNG, JPEG or WebP, at most 25 MB and 16384×16384 pixels) into the campaign file: decoded whole first, then kept with the event that adds it, or refused naming the file and the limit with nothing kept. */
  import_picture: { params: ImportPicture; result: Imported };
  /** A picture as the caller may see it, by key: the GM any picture by its digest; a player a handout's picture by its digest once the handout is revealed to them; the background of the scene shown to them by its map key (fogged areas black, made on this machine) or the image of a token they see. */
  picture: { params: PictureKey; result: PictureData };
  /** The scene the viewer is shown, drawn as a PNG as they see it (the map with the fog blacked out for a player, the grid, the tokens they see) with a line per token; none when no scene is shown to them. What a Matrix room is sent and a forum post attaches. */
  scene_picture: { params: As; result: SceneDrawing | null };
  /** Makes a player's join link (shown once; replaces the player's older link). */
  invite: { params: PlayerName; result: NewInvite };
  /** The players with a join link, and when each was made and last used. */
  invites: { params: Nothing; result: Invite[] };
  /** Ends a player's join link; whether there was one. */
  revoke_invite: { params: PlayerName; result: boolean };
  /** Whether the table is served to browsers: its address and who is connected (none: it is not served). */
  hosting: { params: Nothing; result: Serving | null };
  /** Starts serving the campaign in play to browsers, from the desktop app (players join with their join links; the window plays on). Opening another campaign stops it. */
  host_start: { params: HostStart; result: Serving };
  /** Opens the table served to this computer only to the network as well, or closes it to other computers again (their connections end), while it runs: nobody is dropped by opening it. The GM in a browser may do it as the desktop GM does. */
  host_reach: { params: SetReach; result: Serving };
  /** Stops serving: every browser is disconnected. Whether it was serving. */
  host_stop: { params: Nothing; result: boolean };
  /** The campaign's room online (Matrix), who is seated there, and whether the referee answers it (none: not linked, or this program cannot play online). */
  online: { params: Nothing; result: Online | null };
  /** Links the campaign in play to a room as the GM's account (the password logs in once and is kept nowhere) and starts refereeing it: players act by `!hr` messages. */
  online_link: { params: OnlineLink; result: Online };
  /** Seats a player's account: invited to the room and to a direct room for what only that player may see (a player has one account: an older one loses the seat). */
  online_invite: { params: OnlineInvite; result: Online };
  /** Starts refereeing the linked campaign (it starts by itself when the campaign is opened). */
  online_start: { params: Nothing; result: Online };
  /** Stops refereeing: requests wait in the room until it starts again. Whether it ran. */
  online_stop: { params: Nothing; result: boolean };
  /** Writes a copy of the campaign in play to share, from the desktop app: in full (for another GM: seed included, no join links) or for one player (what they may not see redacted to its digest; it still verifies). The path must not exist yet. */
  share_copy: { params: ShareCopy; result: ShareReport };
  /** A copy of the campaign in play, as a file to download (the GM in a browser): in full or for one player, made as `share_copy` makes it. */
  share_download: { params: CopyFor; result: Download };
  /** Verifies the campaign in play: every check `houserule verify` makes, with the file's seed. */
  verify: { params: Nothing; result: VerifyReport };
  /** Removes a player from the table: their join link ends, then their connections close (a new link lets them back). */
  remove_player: { params: PlayerName; result: Removed };
  /** The ruleset's manifest: the labels of kinds, fields and pools. */
  manifest: { params: Nothing; result: Manifest };
  /** The house rules and the ruleset's scripts, for the editor. */
  house_rules: { params: Nothing; result: HouseRulesState };
  /** Saves a house rule: checked in the sandbox, then swapped in, or refused with its place. */
  save_house_rule: { params: SaveHouseRule; result: ReloadReport | null };
  /** Removes a house rule. */
  remove_house_rule: { params: HouseRuleName; result: ReloadReport | null };
  /** Keeps a house rule the GM's alone, or shares it again: a secret one is never sent to a player (not its name, its source nor what it does). Answers the secret names now. */
  house_rule_secret: { params: HouseRuleSecret; result: string[] };
  /** The rules as the caller may read them: the ruleset's README, each house rule in force with its source and what it does, and what the last change of the rules changed. */
  rule_book: { params: Nothing; result: RuleBook };
  /** Starts the balance lab from the table as it stands: the scene played `times` times by the ruleset's policy, under the ruleset alone and with the campaign's house rules, in the background (a lab already running is stopped first). The table plays on meanwhile. */
  lab_start: { params: LabStart; result: LabProgress };
  /** Where the balance lab stands: runs so far, win rates, histograms (none: no lab yet). */
  lab: { params: Nothing; result: LabProgress | null };
  /** Stops the balance lab after the round it is playing; answers where it stands. */
  lab_stop: { params: Nothing; result: LabProgress | null };
}

/** A call's name. */
export type Method = keyof Calls;
