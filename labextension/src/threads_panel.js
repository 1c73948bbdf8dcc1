// JupyterLab's Threads side panel: the store's threads, newest first, searched and filtered
// by status, a page at a time; kept up to date while it is on screen, and opened in a tab.
import { Widget } from "@lumino/widgets";
import "./threads_panel.css";
import { newRow, updateRow } from "./thread_row.js";
import { threadsPage } from "./threads_api.js";
/** @import {Listed, Page} from "./threads_api.js" */

/** The statuses a thread can have, as the status filter offers them. */
export const STATUSES = [
  "running",
  "waiting",
  "queued",
  "completed",
  "failed",
  "interrupted",
  "stopped",
  "never run",
];
const PAGE = 50;
/** The most threads the server gives in one page: what a poll re-reads at most. */
const MAX_PAGE = 200;
const POLL_MS = 5000;
const TYPED_MS = 250;

export class ThreadsPanel extends Widget {
  /**
   * @param {any} settings the server's connection settings
   * @param {(thread: Listed) => void} open what opening a thread does (a tab)
   */
  constructor(settings, open) {
    super();
    this.id = "threadlab-threads";
    this.addClass("tl-threads");
    this.title.caption = "Threads";
    this.settings = settings;
    this.open = open;
    /** @type {Listed[]} */
    this.threads = [];
    /** @type {string | null} */
    this.next = null;
    /** @type {string | null} */
    this.selected = null;
    /** @type {Map<string, HTMLElement>} */
    this.rowEls = new Map();
    /** The latest request; an older one's answer is dropped. */
    this.asked = 0;
    this.busy = false;
    this.loaded = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.typedTimer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pollTimer = undefined;
    this.build();
  }

  build() {
    this.search = element("input", "tl-threads-search", "threads-search");
    this.search.type = "search";
    this.search.placeholder = "Search";
    this.search.setAttribute("aria-label", "Search the threads' messages, tool calls and ids");
    this.search.addEventListener("input", () => {
      clearTimeout(this.typedTimer);
      this.typedTimer = setTimeout(() => void this.reload(), TYPED_MS);
    });
    this.search.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        clearTimeout(this.typedTimer);
        void this.reload();
      } else if (e.key === "ArrowDown") {
        e.preventDefault();
        this.list.focus();
      }
    });
    this.status = element("select", "tl-threads-filter", "threads-status");
    this.status.setAttribute("aria-label", "Only threads of this status");
    this.status.append(new Option("Any status", ""), ...STATUSES.map((s) => new Option(s, s)));
    this.status.addEventListener("change", () => void this.reload());
    const head = element("div", "tl-threads-head");
    head.append(this.search, this.status);

    this.error = element("p", "tl-threads-error", "threads-error");
    this.error.setAttribute("role", "alert");
    this.error.hidden = true;

    this.list = element("ul", "tl-threads-list", "threads-list");
    this.list.tabIndex = 0;
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("aria-label", "Threads, newest first");
    this.list.addEventListener("keydown", (e) => this.onKey(e));
    this.list.addEventListener("click", (e) => {
      const row = /** @type {HTMLElement} */ (e.target).closest?.("[data-thread]");
      if (!(row instanceof HTMLElement) || !row.dataset.thread) return;
      this.select(row.dataset.thread);
      this.list.focus();
      this.openSelected();
    });
    this.empty = element("p", "tl-threads-empty", "threads-empty");
    this.empty.hidden = true;
    this.more = element("button", "tl-threads-more jp-mod-styled", "threads-more");
    this.more.textContent = "Load more";
    this.more.hidden = true;
    this.more.addEventListener("click", () => void this.loadMore());
    this.scroller = element("div", "tl-threads-scroll");
    this.scroller.append(this.list, this.empty, this.more);
    this.node.append(head, this.error, this.scroller);
  }

  /** What the search box and the filter ask. */
  query() {
    return { q: this.search.value.trim(), status: this.status.value };
  }

  /** The first page again, for a new search or filter. */
  async reload() {
    const ticket = ++this.asked;
    const page = await this.ask({ ...this.query(), limit: PAGE }, ticket);
    if (!page) return;
    this.threads = page.threads;
    this.next = page.next;
    this.scroller.scrollTop = 0;
    this.draw();
  }

  /** The next page, after the threads listed. */
  async loadMore() {
    if (!this.next) return;
    const ticket = ++this.asked;
    const page = await this.ask({ ...this.query(), limit: PAGE, cursor: this.next }, ticket);
    if (!page) return;
    const known = new Set(this.threads.map((t) => t.id));
    this.threads = [...this.threads, ...page.threads.filter((t) => !known.has(t.id))];
    this.next = page.next;
    this.draw();
  }

  /** The threads listed, read again (new ones on top, statuses and times brought up to
   * date); what lies past the most one page holds is kept as it was. */
  async refresh() {
    if (this.busy) return;
    const ticket = ++this.asked;
    const limit = Math.min(Math.max(this.threads.length, PAGE), MAX_PAGE);
    const page = await this.ask({ ...this.query(), limit }, ticket);
    if (!page) return;
    if (page.next === null) {
      this.threads = page.threads;
      this.next = null;
    } else {
      const fresh = new Set(page.threads.map((t) => t.id));
      const last = page.threads[page.threads.length - 1];
      // Past the page read: the threads listed that are older than its last (one newer that
      // is not in it is gone from the store).
      const older = this.threads.filter(
        (t) => !fresh.has(t.id) && last && t.created_at < last.created_at,
      );
      this.threads = [...page.threads, ...older];
      if (!older.length) this.next = page.next;
    }
    this.draw();
  }

  /**
   * @param {import("./threads_api.js").PageQuery} query
   * @param {number} ticket
   * @returns {Promise<Page | null>} null when a newer request took its place, or it failed
   */
  async ask(query, ticket) {
    this.busy = true;
    this.node.dataset.loading = "true";
    try {
      const page = await threadsPage(this.settings, query);
      if (ticket !== this.asked || this.isDisposed) return null;
      this.loaded = true;
      this.showError("");
      return page;
    } catch (error) {
      if (ticket === this.asked && !this.isDisposed) {
        this.showError(String(/** @type {Error} */ (error).message));
      }
      return null;
    } finally {
      if (ticket === this.asked) {
        this.busy = false;
        delete this.node.dataset.loading;
      }
    }
  }

  /** @param {string} text what went wrong; "" when nothing did */
  showError(text) {
    this.error.textContent = text;
    this.error.hidden = !text;
  }

  /** The list as `threads` holds it: rows kept, updated in place, moved; the row a person
   * was looking at stays where it was on screen when rows come above it. */
  draw() {
    const now = Date.now() / 1000;
    const anchor = this.scroller.scrollTop > 0 ? this.firstVisible() : null;
    const anchorTop = anchor ? anchor.offsetTop - this.scroller.scrollTop : 0;
    const wanted = this.threads.map((t) => {
      let row = this.rowEls.get(t.id);
      if (!row) {
        row = newRow(t);
        this.rowEls.set(t.id, row);
      }
      updateRow(row, t, now);
      const chosen = t.id === this.selected;
      row.classList.toggle("tl-selected", chosen);
      row.setAttribute("aria-selected", String(chosen));
      return row;
    });
    const ids = new Set(this.threads.map((t) => t.id));
    for (const [id, row] of this.rowEls) {
      if (!ids.has(id)) {
        row.remove();
        this.rowEls.delete(id);
      }
    }
    let place = this.list.firstElementChild;
    for (const row of wanted) {
      if (row === place) place = place.nextElementSibling;
      else this.list.insertBefore(row, place);
    }
    if (anchor?.isConnected) this.scroller.scrollTop = anchor.offsetTop - anchorTop;
    const { q, status } = this.query();
    this.empty.textContent =
      q || status ? "No thread matches." : "No threads in this store yet: run one in a notebook.";
    this.empty.hidden = this.threads.length > 0 || !this.error.hidden;
    this.more.hidden = !this.next;
    this.node.dataset.count = String(this.threads.length);
    this.activeDescendant();
  }

  firstVisible() {
    for (const row of this.list.children) {
      const el = /** @type {HTMLElement} */ (row);
      if (el.offsetTop + el.offsetHeight > this.scroller.scrollTop) return el;
    }
    return null;
  }

  /** @param {string} id */
  select(id) {
    const before = this.selected ? this.rowEls.get(this.selected) : null;
    before?.classList.remove("tl-selected");
    before?.setAttribute("aria-selected", "false");
    this.selected = id;
    const row = this.rowEls.get(id);
    row?.classList.add("tl-selected");
    row?.setAttribute("aria-selected", "true");
    row?.scrollIntoView({ block: "nearest" });
    this.activeDescendant();
  }

  activeDescendant() {
    const row = this.selected ? this.rowEls.get(this.selected) : null;
    if (row) this.list.setAttribute("aria-activedescendant", row.id);
    else this.list.removeAttribute("aria-activedescendant");
  }

  openSelected() {
    const thread = this.threads.find((t) => t.id === this.selected);
    if (thread) this.open(thread);
  }

  /** @param {KeyboardEvent} e */
  onKey(e) {
    const at = this.threads.findIndex((t) => t.id === this.selected);
    const last = this.threads.length - 1;
    /** @type {Record<string, number>} */
    const moves = {
      ArrowDown: at < 0 ? 0 : Math.min(at + 1, last),
      ArrowUp: at < 0 ? 0 : Math.max(at - 1, 0),
      Home: 0,
      End: last,
    };
    if (e.key in moves && last >= 0) {
      e.preventDefault();
      this.select(this.threads[moves[e.key]].id);
      if (e.key === "End" && this.next) void this.loadMore();
    } else if (e.key === "Enter" && this.selected) {
      e.preventDefault();
      this.openSelected();
    }
  }

  /** Polled while on screen and not searching: a search's answer stays as it was asked. */
  tick() {
    if (!this.isVisible || this.search.value.trim() || document.hidden) return;
    void this.refresh();
  }

  onAfterShow() {
    if (this.loaded) void this.refresh();
    else void this.reload();
  }

  onAfterAttach() {
    this.pollTimer = setInterval(() => this.tick(), POLL_MS);
    if (this.isVisible && !this.loaded) void this.reload();
  }

  onBeforeDetach() {
    clearInterval(this.pollTimer);
  }

  dispose() {
    clearInterval(this.pollTimer);
    clearTimeout(this.typedTimer);
    super.dispose();
  }
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} className
 * @param {string} [testid]
 * @returns {HTMLElementTagNameMap[K]}
 */
function element(tag, className, testid) {
  const el = document.createElement(tag);
  el.className = className;
  if (testid) el.dataset.testid = testid;
  return el;
}
