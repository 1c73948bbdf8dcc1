// A stored thread opened from the Threads panel: a main-area tab drawing its player with the
// views' one bundle, from what a shared page of it holds (no kernel is asked).
import { Widget } from "@lumino/widgets";
import "../../src/threadlab/widgets/static/threadlab.css";
import { renderOffline } from "../../src/threadlab/widgets/static/views.js";
import { shortId } from "./thread_row.js";
import { threadView } from "./threads_api.js";

export class ThreadTab extends Widget {
  /**
   * @param {any} settings the server's connection settings
   * @param {{id: string, target: string}} thread
   */
  constructor(settings, thread) {
    super();
    this.id = `threadlab-thread-${thread.id}`;
    this.addClass("tl-thread-tab");
    this.title.label = `${thread.target} · ${shortId(thread.id)}`;
    this.title.caption = `${thread.target} · ${thread.id}`;
    this.title.closable = true;
    this.node.dataset.testid = "thread-tab";
    this.node.dataset.thread = thread.id;
    this.node.tabIndex = -1;
    this.settings = settings;
    this.threadId = thread.id;
    /** The drawing's clean-up, once drawn. @type {(() => void) | null} */
    this.cleanUp = null;
    this.say("Opening the thread…", "loading");
    void this.load();
  }

  async load() {
    try {
      const view = await threadView(this.settings, this.threadId);
      if (this.isDisposed) return;
      this.node.replaceChildren();
      const el = document.createElement("div");
      el.className = "tl-thread-tab-view";
      this.node.append(el);
      this.cleanUp = renderOffline(el, view.state, view.files);
      if (view.left_out?.length) this.node.append(leftOut(view.left_out));
      this.node.dataset.state = "drawn";
      // Opened with the keys, the tab has the focus: its player takes the arrows from now.
      if (document.activeElement === this.node) this.onActivateRequest();
    } catch (error) {
      if (!this.isDisposed) this.say(String(/** @type {Error} */ (error).message), "failed");
    }
  }

  /**
   * @param {string} text
   * @param {string} state
   */
  say(text, state) {
    const p = document.createElement("p");
    p.className = `tl-thread-tab-note tl-thread-tab-${state}`;
    p.dataset.testid = "thread-tab-note";
    if (state === "failed") p.setAttribute("role", "alert");
    p.textContent = text;
    this.node.replaceChildren(p);
    this.node.dataset.state = state;
  }

  /** The tab brought forward: the keys step its player (← / →) straight away. */
  onActivateRequest() {
    const player = /** @type {HTMLElement | null} */ (
      this.node.querySelector("[data-testid=player]")
    );
    (player || this.node).focus();
  }

  dispose() {
    if (this.isDisposed) return;
    this.cleanUp?.();
    super.dispose();
  }
}

/** @param {string[]} lines the files left out, each "path: N bytes" */
function leftOut(lines) {
  const note = document.createElement("aside");
  note.className = "tl-thread-tab-note";
  note.dataset.testid = "left-out";
  const heading = document.createElement("p");
  heading.textContent = "Files too large to show here, left out:";
  const list = document.createElement("ul");
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = line;
    list.append(item);
  }
  note.append(heading, list);
  return note;
}
