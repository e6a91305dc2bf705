// Chartside chat page: asks, streams answers over SSE, opens citations, confirms bookings.
// Every piece of data is inserted with textContent / createElement — never innerHTML — so
// record text, note text and leaflet text can never become markup.
"use strict";

(function () {
  const root = document.getElementById("chat-root");
  if (!root) return;

  const patientId = root.dataset.patientId;
  const api = "/api/patients/" + encodeURIComponent(patientId);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  let conversationId = root.dataset.conversationId || null;

  const messages = document.getElementById("messages");
  const form = document.getElementById("ask-form");
  const input = document.getElementById("question");
  const askButton = document.getElementById("ask-button");
  const formError = document.getElementById("form-error");
  const template = document.getElementById("message-template");
  const recordDialog = document.getElementById("record-dialog");
  const confirmDialog = document.getElementById("confirm-dialog");

  const HANDLE_RE = /\[([A-Z]{1,2}\d+)\]/g;

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function show(node, visible) {
    node.hidden = !visible;
  }

  function fillFields(dl, pairs) {
    dl.replaceChildren();
    for (const [label, value] of pairs) {
      dl.append(el("dt", label), el("dd", value));
    }
  }

  // ---- scope: "ask about this" (a row) / "ask about these" (a section) -------------------------

  const scopeChip = document.getElementById("scope-chip");
  const defaultPlaceholder = input.placeholder;
  let pendingScope = null; // {scope, label} for the next question only

  function setScope(scope, label) {
    pendingScope = { scope: scope, label: label };
    scopeChip.querySelector(".scope-label").textContent = label;
    show(scopeChip, true);
    input.placeholder = scope.record
      ? "Ask about this, e.g. “What does this mean?” — or just press Ask"
      : "Ask about these, e.g. “What has changed?” — or just press Ask";
    input.focus();
  }

  function clearScope() {
    pendingScope = null;
    show(scopeChip, false);
    input.placeholder = defaultPlaceholder;
  }

  document.getElementById("clear-scope").addEventListener("click", () => {
    clearScope();
    input.focus();
  });
  document.querySelectorAll("[data-ask-kind]").forEach((button) => {
    button.addEventListener("click", () =>
      setScope({ record: { kind: button.dataset.askKind, id: button.dataset.askId } }, button.dataset.askLabel),
    );
  });
  document.querySelectorAll("[data-ask-section]").forEach((button) => {
    button.addEventListener("click", () =>
      setScope({ section: button.dataset.askSection }, "your " + button.dataset.askLabel),
    );
  });

  function defaultQuestion(scope) {
    if (scope.record) return "What does this show?";
    return root.dataset.role === "patient" ? "What does this part of my record show?" : "Summarise this section.";
  }

  function showScope(item, text) {
    item.scopeBadge.textContent = text;
    show(item.scopeBadge, Boolean(text));
  }

  // ---- asking -------------------------------------------------------------------------------

  async function ask(question, scope, scopeLabel) {
    show(formError, false);
    askButton.disabled = true;
    try {
      const body = { question: question };
      if (conversationId) body.conversation_id = conversationId;
      if (scope) body.scope = scope;
      const response = await fetch(api + "/messages", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
        body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => ({}));
      if (response.status === 401) {
        window.location.assign("/login");
        return;
      }
      if (!response.ok) {
        formError.textContent = data.message || "The question could not be sent.";
        show(formError, true);
        return;
      }
      if (conversationId !== data.conversation_id) {
        conversationId = data.conversation_id;
        const url = new URL(window.location.href);
        url.searchParams.set("c", conversationId);
        window.history.replaceState(null, "", url.toString());
      }
      const item = newMessage(data.message_id, data.question);
      if (scope) {
        showScope(item, "Asked about: " + scopeLabel);
        clearScope();
      }
      messages.append(item.node);
      item.node.scrollIntoView({ block: "nearest" });
      input.value = "";
      stream(item);
    } catch (err) {
      formError.textContent = "The question could not be sent. Check your connection and try again.";
      show(formError, true);
    } finally {
      askButton.disabled = false;
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let question = input.value.trim();
    if (!question && pendingScope) question = defaultQuestion(pendingScope.scope);
    if (!question) {
      formError.textContent = "Type a question first.";
      show(formError, true);
      input.focus();
      return;
    }
    if (pendingScope) ask(question, pendingScope.scope, pendingScope.label);
    else ask(question, null);
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  document.getElementById("new-conversation").addEventListener("click", () => {
    conversationId = null;
    messages.replaceChildren();
    const url = new URL(window.location.href);
    url.searchParams.delete("c");
    window.history.replaceState(null, "", url.toString());
    input.focus();
  });

  // ---- one message ----------------------------------------------------------------------------

  function newMessage(messageId, question, existing) {
    const node = existing || template.content.firstElementChild.cloneNode(true);
    if (existing) {
      existing.append(...template.content.firstElementChild.cloneNode(true).childNodes);
    }
    node.dataset.messageId = messageId;
    node.querySelector(".question").textContent = question;
    return {
      id: messageId,
      node: node,
      status: node.querySelector(".status"),
      scopeBadge: node.querySelector(".scope-badge"),
      answer: node.querySelector(".answer"),
      slots: node.querySelector(".slots"),
      booking: node.querySelector(".booking"),
      grounding: node.querySelector(".grounding"),
      error: node.querySelector(".error"),
      trace: node.querySelector(".trace"),
      metrics: node.querySelector(".metrics"),
      text: "",
      citations: {},
      tools: {},
    };
  }

  function stream(item) {
    const source = new EventSource(api + "/messages/" + encodeURIComponent(item.id) + "/events");
    item.status.textContent = "Thinking…";
    const on = (type, handler) =>
      source.addEventListener(type, (event) => {
        let data;
        try {
          data = JSON.parse(event.data);
        } catch (err) {
          return;
        }
        handler(data);
      });

    on("status", (data) => {
      item.status.textContent = data.text;
    });
    on("tool_call", (data) => addToolCall(item, data));
    on("tool_result", (data) => addToolResult(item, data));
    on("text", (data) => {
      item.text += data.delta;
      item.answer.textContent = item.text;
    });
    on("citation", (data) => {
      item.citations[data.handle] = data;
    });
    on("done", (data) => {
      source.close();
      finish(item, data);
    });
    on("error", (data) => {
      source.close();
      item.status.textContent = "";
      item.answer.setAttribute("aria-busy", "false");
      if (item.text || data.text_withdrawn) withdraw(item);
      item.error.textContent = data.message || "The answer could not be completed.";
      show(item.error, true);
    });
    // transport errors (not the "error" event type above, which carries data)
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        item.status.textContent = "";
        if (item.answer.getAttribute("aria-busy") === "true") {
          item.error.textContent = "The answer stream could not be opened. Reload the page to try again.";
          show(item.error, true);
          item.answer.setAttribute("aria-busy", "false");
        }
      } else {
        item.status.textContent = "Connection lost — reconnecting…";
      }
    };
  }

  // Text streamed before an error is no answer: it was never checked against the record and
  // was not kept (only a "done" event carries an answer). It stays readable, struck through
  // under a label, so that nobody takes what they glimpsed for what the record says.
  function withdraw(item) {
    item.answer.classList.add("withdrawn");
    item.answer.replaceChildren(
      el("p", "Not an answer — this text stopped before it was checked against the record, and it was not kept.", "withdrawn-label"),
      el("s", item.text, "withdrawn-text"),
    );
  }

  function addToolCall(item, data) {
    const li = el("li", null, "tool pending" + (data.background ? " background" : ""));
    li.append(el("code", data.name), el("span", " " + JSON.stringify(data.input || {}), "tool-input"));
    if (data.background) li.append(el("span", " background — context, not the answer", "tag"));
    const result = el("div", "running…", "tool-result");
    li.append(result);
    item.tools[data.id] = result;
    item.trace.querySelector("ol").append(li);
    const steps = item.trace.querySelectorAll("li").length;
    item.trace.querySelector(".trace-count").textContent = steps + (steps === 1 ? " step" : " steps");
    show(item.trace, true);
  }

  function addToolResult(item, data) {
    let target = item.tools[data.id];
    if (!target) {
      addToolCall(item, { id: data.id, name: data.name, input: {} });
      target = item.tools[data.id];
    }
    const li = target.parentElement;
    li.classList.remove("pending");
    li.classList.add(data.ok ? "ok" : "failed");
    let line = (data.ok ? "✓ " : "✗ ") + (data.summary || "");
    if (data.truncated) line += " (showing part of " + data.total + ")";
    if (data.latency_ms) line += " · " + Math.round(data.latency_ms) + " ms";
    if (data.handles && data.handles.length) line += " · " + data.handles.join(", ");
    target.textContent = line;
    if (data.ok && data.name === "find_slots") showSlots(item, data.rows || []);
    if (data.ok && data.name === "book_appointment") showBooking(item, data.rows || []);
  }

  function finish(item, done) {
    item.status.textContent = "";
    item.text = done.answer || item.text;
    renderAnswer(item);
    item.answer.setAttribute("aria-busy", "false");
    renderGrounding(item, done.grounding || {});
    renderMetrics(item, done);
    if (done.scope && done.scope.label) {
      const kind = done.scope.kind === "record" ? "this record" : "this section";
      showScope(item, "Asked about " + kind + ": " + done.scope.label);
    }
  }

  // The answer as paragraphs and lists ("- " lines), citation handles as buttons. Built from
  // text nodes only: whatever the answer quotes (note text, leaflet text) stays text.
  function renderAnswer(item) {
    const nodes = [];
    for (const block of item.text.split(/\n{2,}/)) {
      let list = null;
      let current = null; // the <p> or <li> that a following plain line continues
      for (const line of block.split("\n")) {
        const bullet = /^\s*[-•]\s+/.exec(line);
        if (bullet) {
          if (!list) {
            list = el("ul");
            nodes.push(list);
          }
          current = el("li");
          current.append(...inline(item, line.slice(bullet[0].length)));
          list.append(current);
        } else if (current) {
          current.append(el("br"), ...inline(item, line));
        } else {
          current = el("p");
          current.append(...inline(item, line));
          nodes.push(current);
        }
      }
    }
    item.answer.replaceChildren(...nodes);
  }

  function inline(item, text) {
    const parts = [];
    let last = 0;
    const re = new RegExp(HANDLE_RE.source, "g");
    let match;
    while ((match = re.exec(text)) !== null) {
      if (match.index > last) parts.push(document.createTextNode(text.slice(last, match.index)));
      const handle = match[1];
      const citation = item.citations[handle];
      if (citation) {
        const button = el("button", handle, "cite");
        button.type = "button";
        button.setAttribute("aria-label", "Open source " + handle + (citation.label ? ": " + citation.label : ""));
        button.title = citation.label || citation.kind;
        button.addEventListener("click", () => openRecord(citation.kind, citation.record_id, passageOf(citation)));
        parts.push(button);
      } else {
        const span = el("span", handle, "cite unknown");
        span.title = "This source could not be found in the record";
        parts.push(span);
      }
      last = match.index + match[0].length;
    }
    if (last < text.length) parts.push(document.createTextNode(text.slice(last)));
    return parts;
  }

  function passageOf(citation) {
    const data = citation.data || {};
    for (const key of ["chunk_id", "passage", "seq"]) {
      if (data[key] !== undefined && data[key] !== null) return String(data[key]);
    }
    return null;
  }

  function renderGrounding(item, grounding) {
    const issues = grounding.issues || [];
    if (grounding.grounded !== false && issues.length === 0) {
      item.node.classList.add("grounded");
      return;
    }
    item.grounding.replaceChildren(el("strong", "Check this answer: some statements could not be matched to the record."));
    const list = el("ul");
    for (const issue of issues) list.append(el("li", issue.detail));
    item.grounding.append(list);
    show(item.grounding, true);
  }

  function ms(value) {
    if (value === null || value === undefined) return "—";
    return value < 1000 ? Math.round(value) + " ms" : (value / 1000).toFixed(2) + " s";
  }

  // Time to first token, total time, model iterations, tokens, cost, and every tool call.
  function renderMetrics(item, done) {
    const m = done.metrics || {};
    const usage = done.usage || {};
    const tokens = m.tokens || {
      input: usage.input_tokens || 0,
      output: usage.output_tokens || 0,
      cache_read: usage.cache_read_input_tokens || 0,
      cache_creation: usage.cache_creation_input_tokens || 0,
    };
    const tools = Array.isArray(m.tools) ? m.tools : [];
    const pairs = [["Mode", done.mode + (m.model ? " (" + m.model + ")" : "")]];
    if (done.scope && done.scope.label) pairs.push(["Scope", done.scope.kind + ": " + done.scope.label]);
    pairs.push(["Time to first token", ms(m.ttft_ms)]);
    pairs.push(["Total time", ms(m.latency_ms)]);
    pairs.push(["Model iterations", String(m.iterations || 0)]);
    pairs.push(["Tool calls", tools.length + (tools.length ? " (" + ms(m.tool_ms) + " waiting on tools)" : "")]);
    pairs.push(["Tokens in / out", (tokens.input || 0) + " / " + (tokens.output || 0)]);
    pairs.push(["Cached tokens read / written", (tokens.cache_read || 0) + " / " + (tokens.cache_creation || 0)]);
    const cost = done.cost_usd || m.cost_usd || 0;
    let costText = "$" + Number(cost).toFixed(4);
    if (done.mode !== "claude") costText += " (no model call)";
    else if (m.cost_estimated === false) costText = "unknown (no price for this model)";
    pairs.push(["Estimated cost", costText]);
    if (m.background && m.background.length) pairs.push(["Background added", m.background.join(", ")]);
    fillFields(item.metrics.querySelector("dl"), pairs);

    const table = item.metrics.querySelector(".tool-metrics");
    const body = table.querySelector("tbody");
    body.replaceChildren();
    for (const tool of tools) {
      const row = el("tr");
      const kind = tool.background ? "background" : tool.ok ? "lookup" : "refused / failed";
      row.append(el("td", tool.name), el("td", ms(tool.ms)), el("td", String(tool.rows || 0)), el("td", kind));
      body.append(row);
    }
    show(table, tools.length > 0);
    show(item.metrics, true);
  }

  // ---- booking: choose → confirm → ask ------------------------------------------------------

  let pendingSlot = null;
  const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

  function pad(n) {
    return String(n).padStart(2, "0");
  }

  // "Mon 2026-11-30 09:00–09:30 UTC": the words the answers use (server/formatting.py), so the
  // slot on a button, in the confirmation and in the answer is recognisably the same one.
  function when(starts, ends) {
    const s = new Date(starts);
    if (!starts || Number.isNaN(s.getTime())) return starts || "";
    let text =
      WEEKDAYS[s.getUTCDay()] + " " + s.getUTCFullYear() + "-" + pad(s.getUTCMonth() + 1) + "-" + pad(s.getUTCDate()) +
      " " + pad(s.getUTCHours()) + ":" + pad(s.getUTCMinutes());
    const e = new Date(ends);
    if (ends && !Number.isNaN(e.getTime())) text += "–" + pad(e.getUTCHours()) + ":" + pad(e.getUTCMinutes());
    return text + " UTC";
  }

  function place(row) {
    return [row.department || row.specialty, row.organization].filter(Boolean).join(", ");
  }

  function slotLabel(row) {
    const who = row.practitioner || row.clinician;
    return [when(row.starts_at || row.start, row.ends_at), place(row), who ? "with " + who : ""]
      .filter(Boolean)
      .join(" — ");
  }

  function showSlots(item, rows) {
    const list = item.slots.querySelector("ul");
    list.replaceChildren();
    for (const row of rows) {
      const slotId = row.slot_id || row.id;
      if (!slotId) continue;
      const li = el("li");
      const button = el("button", null, "secondary slot");
      button.type = "button";
      button.setAttribute("aria-label", "Choose " + (row.handle ? row.handle + ": " : "") + slotLabel(row));
      if (row.handle) button.append(el("span", row.handle, "slot-handle"));
      button.append(el("strong", when(row.starts_at || row.start, row.ends_at), "slot-when"));
      const who = row.practitioner || row.clinician;
      button.append(el("span", place(row) + (who ? " · " + who : ""), "slot-where"));
      button.addEventListener("click", () => confirmSlot(row, slotId, button));
      li.append(button);
      list.append(li);
    }
    show(item.slots, list.children.length > 0);
  }

  function confirmSlot(row, slotId, button) {
    pendingSlot = { row: row, slotId: slotId, button: button };
    const pairs = [["When", when(row.starts_at || row.start, row.ends_at)]];
    for (const [key, label] of [
      ["department", "Department"],
      ["specialty", "Specialty"],
      ["organization", "Clinic"],
      ["practitioner", "Clinician"],
      ["clinician", "Clinician"],
      ["location", "Place"],
      ["address", "Address"],
    ]) {
      if (row[key] && !pairs.some(([, value]) => value === row[key])) pairs.push([label, row[key]]);
    }
    fillFields(confirmDialog.querySelector("dl"), pairs);
    confirmDialog.showModal();
    document.getElementById("confirm-booking").focus();
  }

  document.getElementById("confirm-booking").addEventListener("click", () => {
    confirmDialog.close();
    if (!pendingSlot) return;
    // the handle is what the answer offered ("book S1"); the slot_id lets any agent act on it
    const label = slotLabel(pendingSlot.row);
    const handle = pendingSlot.row.handle;
    const chosen = pendingSlot.button;
    const question =
      "Book " + (handle ? handle + ": " : "") + (label || "this slot") + " (slot_id " + pendingSlot.slotId + ").";
    pendingSlot = null;
    // one confirmation per offer: the choices that led here cannot be sent twice by accident
    document.querySelectorAll(".slots button").forEach((b) => {
      b.disabled = true;
    });
    if (chosen) {
      chosen.classList.add("chosen");
      chosen.setAttribute("aria-label", "Chosen: " + chosen.getAttribute("aria-label").replace(/^Choose /, ""));
    }
    ask(question, null);
  });

  document.getElementById("cancel-booking").addEventListener("click", () => {
    pendingSlot = null;
    confirmDialog.close();
    input.focus();
  });

  function showBooking(item, rows) {
    const row = rows[0] || {};
    item.booking.replaceChildren(
      el("strong", "Booked. "),
      document.createTextNode(slotLabel(row) ? slotLabel(row) + "." : "The appointment is confirmed."),
    );
    if (row.appointment_id) {
      item.booking.append(el("span", " It is listed under Upcoming appointments.", "muted"));
      addUpcoming(row);
    }
    show(item.booking, true);
  }

  // the record panel's "Upcoming appointments" gains the booking at once (a reload renders it from the database)
  function addUpcoming(row) {
    const list = document.getElementById("upcoming-appointments");
    if (!list || list.querySelector('[data-id="' + CSS.escape(row.appointment_id) + '"]')) return;
    const li = el("li");
    li.dataset.kind = "appointment";
    li.dataset.id = row.appointment_id;
    const open = el("button", row.department || "Appointment", "row-link");
    open.type = "button";
    open.addEventListener("click", () => openRecord("appointment", row.appointment_id, null));
    li.append(open, document.createTextNode(" "));
    li.append(el("span", when(row.starts_at, row.ends_at) + (row.organization ? " · " + row.organization : ""), "muted"));
    const items = Array.from(list.children);
    const later = items.find((other) => (other.dataset.starts || "") > (row.starts_at || ""));
    li.dataset.starts = row.starts_at || "";
    list.insertBefore(li, later || null);
    const count = list.closest("section").querySelector(".count");
    if (count) count.textContent = String(list.children.length);
    const none = document.getElementById("no-appointments");
    if (none) none.hidden = true;
  }

  // ---- opening a cited row / passage -----------------------------------------------------------

  async function openRecord(kind, recordId, passage) {
    const title = recordDialog.querySelector("h2");
    const fields = recordDialog.querySelector(".fields");
    const passageNode = recordDialog.querySelector(".passage");
    const passageHeading = recordDialog.querySelector(".passage-heading");
    const full = recordDialog.querySelector(".full-text");
    const errorNode = recordDialog.querySelector(".dialog-error");
    title.textContent = "Loading…";
    fields.replaceChildren();
    [passageNode, passageHeading, full, errorNode].forEach((n) => show(n, false));
    recordDialog.showModal();
    let url = api + "/records/" + encodeURIComponent(kind) + "/" + encodeURIComponent(recordId);
    if (passage) url += "?passage=" + encodeURIComponent(passage);
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      const data = await response.json();
      if (!response.ok) throw new Error(data.message || "Not found.");
      title.textContent = data.title;
      fillFields(fields, data.fields || []);
      const p = data.passage;
      passageNode.classList.toggle("cited", Boolean(p && p.text));
      if (p && p.text) {
        // "Leaflet title › Section": the title is the dialog's own heading already
        const heading = (p.heading || "").startsWith(data.title + " › ") ? p.heading.slice(data.title.length + 3) : p.heading;
        passageHeading.textContent = heading || "";
        show(passageHeading, Boolean(heading));
        passageNode.textContent = p.text;
        show(passageNode, true);
      } else if (data.text) {
        passageNode.textContent = data.text;
        show(passageNode, true);
      }
      if (data.text && p && p.text) {
        const whole = full.querySelector(".note-text");
        if (Number.isInteger(p.start) && Number.isInteger(p.end)) {
          whole.replaceChildren(
            document.createTextNode(data.text.slice(0, p.start)),
            el("mark", data.text.slice(p.start, p.end)),
            document.createTextNode(data.text.slice(p.end)),
          );
        } else {
          whole.textContent = data.text;
        }
        full.open = false;
        show(full, true);
      }
    } catch (err) {
      title.textContent = "Could not open this source";
      errorNode.textContent = err.message;
      show(errorNode, true);
    }
  }

  document.querySelectorAll("[data-open-kind]").forEach((button) => {
    button.addEventListener("click", () => openRecord(button.dataset.openKind, button.dataset.openId, null));
  });

  // ---- earlier messages of this conversation: replay their stored events ------------------------

  for (const node of messages.querySelectorAll("li.message[data-message-id]")) {
    const item = newMessage(node.dataset.messageId, node.dataset.question, node);
    stream(item);
  }
})();
