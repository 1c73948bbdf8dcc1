// @ts-check
// The types the views are written against (JSDoc, checked by tsc): the synced state the
// Python side draws from, the messages on the widget's comm, and each view's local state.

/**
 * The synced state the Python side draws from (`TraceState.snapshot()`).
 * @typedef {{id: string, parent: string | null, agent: string, name: string, status: string,
 *   progress: string | null, relation?: string, cost_usd?: number | null}} TraceThread
 * @typedef {{id: string, role: string, text: string, chars: number, depth: number,
 *   side: string | null, calls: string[], attachments: string[],
 *   usage: Record<string, number> | null, subagent: string | null,
 *   cost_usd?: number | null, reasoning?: string, thread?: string, at?: number,
 *   model?: string | null, since?: number}} TraceMessage
 * @typedef {{type: string, data: unknown, at?: number}} CardEvent
 * @typedef {{id: string, thread: string, name: string, depth: number, progress: string | null,
 *   status: string, duration_ms: number | null, result: string | null, result_chars: number,
 *   args_chars: number, args: string, label: string, events: CardEvent[],
 *   events_dropped?: number,
 *   started_at: number | null, finished_at?: number | null, traceback: string | null,
 *   approval: Approval | null, proposed?: string | null, proposed_label?: string,
 *   args_folded?: boolean,
 *   elicitation?: Elicitation | null, past?: boolean, app?: ToolApp | null}} Card
 * A card's app: its page held once in the trace's `apps` (`page` names it; `html` where a
 * trace from before holds it in the card), what it may reach, the call's whole result.
 * @typedef {{uri: string, page?: string, html?: string, csp?: Record<string, string[]>,
 *   error?: string, result?: string}} ToolApp
 * @typedef {{state: "asked" | "answered", server?: string, tool?: string, message?: string,
 *   schema?: Record<string, unknown>, order?: string[], action?: string,
 *   answer?: Record<string, unknown>}} Elicitation
 * @typedef {{state: "asked" | "approved" | "rejected", arguments?: string | null,
 *   edited?: boolean, by?: string, reason?: string | null}} Approval
 * @typedef {{path: string, size: number, digest?: string}} FileEntry
 * @typedef {{status?: string, text?: string | null, error?: string | null,
 *   usage?: Record<string, number> | null, cost_usd?: number | null,
 *   stop_reason?: string | null, next_request?: string, next_tools?: string[]}} RunSummary
 * @typedef {{root: string, threads: TraceThread[], messages: Record<string, TraceMessage[]>,
 *   cards: Record<string, Card>, files: Record<string, FileEntry[]>,
 *   drafts: Record<string, string>, run: RunSummary,
 *   earlier?: Record<string, number>, apps?: Record<string, string>,
 *   uncut?: {messages: Record<string, TraceMessage[]>, cards: Record<string, Card>}}} Trace
 * @typedef {{op: "preview", thread: string, path: string, digest?: string, error?: string,
 *   image?: string,
 *   text?: string, size?: number, truncated?: boolean}} Preview
 * @typedef {{id: string, agent: string, origin: string | null, notebook?: string | null,
 *   created_at: number,
 *   status: string, messages: number, children: number,
 *   forked_from?: string | null}} ThreadRow
 * @typedef {{member: string, thread: string | null, threads: number, status: string,
 *   calls: number, where: string, score: number | null, max_score: number | null,
 *   feedback: string}} ClassRow
 * @typedef {{case: string, model: string, repeat: number, thread: string | null,
 *   status: string, passed: boolean, scores: Record<string, unknown>, ms: number,
 *   tokens: number, cost_usd: number | null, error: string | null,
 *   note: string | null}} EvalCell
 * @typedef {{get(name: string): any, set(name: string, value: unknown): void,
 *   save_changes(): void, send(content: ViewMessage): void,
 *   on(event: string, callback: (...args: any[]) => void): void}} Model
 * @typedef {{el: HTMLElement, sig: string}} Keyed
 * @typedef {{root: HTMLElement, status: HTMLElement, usage: HTMLElement, code: HTMLElement,
 *   play: HTMLElement, reopen: HTMLElement,
 *   left: HTMLElement, center: HTMLElement, right: HTMLElement, error: HTMLElement,
 *   pause: HTMLElement, predicted: HTMLElement,
 *   timeline: HTMLDetailsElement, timelineHead: HTMLElement,
 *   timelineBody: HTMLElement}} Skeleton
 * @typedef {{selected: string | null, fetched: Record<string, string>,
 *   fetchedArgs: Record<string, string>, preview: Preview | null,
 *   redraw: () => void, ui: Skeleton | null, cards: Map<string, Keyed>,
 *   messages: Map<string, Keyed>, previewEl: Keyed | null,
 *   forks: Map<string, {el: HTMLElement, error: HTMLElement}>,
 *   decisions: Map<string, {el: HTMLElement, error: HTMLElement, sent: () => void}>,
 *   requests: Record<string, string>, listQuery: string, listShown: number,
 *   evalFailures: boolean, evalDifferences: boolean,
 *   previewSource: boolean, memory: Memory,
 *   clock: Record<string, {seen: number, started: number | null}>,
 *   secret: {token: string, config: string} | null,
 *   apps: Map<string, AppHost>,
 *   player?: import("./player.js").PlayerState | null, playing?: boolean,
 *   shownRoot?: string, focusAfter?: string | null,
 *   stepPrediction?: {choice: string | null, after: number, scored: boolean[],
 *     reveal: string | null}}} Local
 * @typedef {{open: Set<string>, selected: string | null, shownMember?: string}} Memory
 * A call's app on screen (app_frame.js): its box, where the protocol stands, why it was
 * stopped (null while it runs), and how it is told of an answer and of a redrawn card.
 * @typedef {{el: HTMLElement, uri: string, initialized: boolean, sentInput: boolean,
 *   sentResult: boolean, stopped: string | null, answer: (msg: any) => void,
 *   update: (c: Card, local: Local | null) => void, stop: (why: string) => void}} AppHost
 * @typedef {{thread: string, at: string, kind: "call" | "message", result?: string | null,
 *   args?: string, text?: string}} ForkPoint
 */

/**
 * The messages on the widget's comm, as the kernel declares them (`widgets/_messages.py`; a
 * test holds both lists to the same ops and fields). From the view to the kernel:
 * @typedef {{op: "fetch_result", thread: string, call: string}
 *   | {op: "fetch_arguments", thread: string, call: string}
 *   | {op: "fetch_request", thread: string, message: string}
 *   | {op: "preview", thread: string, path: string, digest?: string}
 *   | {op: "select", thread: string}
 *   | {op: "ready"}
 *   | {op: "fork", thread: string, at: string, result?: unknown,
 *       arguments?: Record<string, unknown>, message?: string}
 *   | {op: "decide", thread: string, call: string, approved: boolean,
 *       arguments?: Record<string, unknown>, reason?: string}
 *   | {op: "elicit", thread: string, call: string, action: "accept" | "decline",
 *       content?: Record<string, unknown>}
 *   | {op: "step", thread: string, action: "continue" | "stop"}
 *   | {op: "play", thread: string, playing: boolean}
 *   | {op: "open", thread: string}
 *   | {op: "app_call", thread: string, call: string, request: string | number, name: string,
 *       arguments: Record<string, unknown>}} ViewMessage
 * From the kernel to the view:
 * @typedef {{op: "result", call: string, text: string}
 *   | {op: "arguments", call: string, text: string}
 *   | {op: "request", message: string, text: string}
 *   | Preview
 *   | {op: "fork_error", thread: string, at: string, error: string}
 *   | {op: "decide_error", thread: string, call: string, error: string}
 *   | {op: "secret", token: string, config: string}
 *   | {op: "app_result", call: string, request: string | number,
 *       result?: Record<string, unknown>, error?: string}
 *   | {op: "patch", threads?: TraceThread[], cards?: Record<string, Card>,
 *       files?: Record<string, FileEntry[]>, messages?: Record<string, TraceMessage[]>,
 *       drafts?: Record<string, string | null>, run?: RunSummary,
 *       apps?: Record<string, string>}} KernelMessage
 * A decision taken in a card:
 * @typedef {{approved: boolean, arguments?: Record<string, unknown>, reason?: string}} Decision
 */

export {};
