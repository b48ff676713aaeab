// The review page's one script: inlined, admitted by its hash in the page's CSP, and the
// same on every page. It reads the page's data from escaped data-* attributes, never
// from script text, and builds the review file in the browser: nothing is sent
// anywhere; Save downloads the file through a Blob URL. Inlined in a script element: it
// must never contain an end tag or an HTML comment opener.
(function () {
  "use strict";
  var form = document.getElementById("review");
  var button = document.getElementById("save");
  var saved = document.getElementById("saved");
  var items = Array.prototype.slice.call(form.querySelectorAll("article.item"));

  function decode(base64) {
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) {
      bytes[i] = binary.charCodeAt(i);
    }
    return new TextDecoder("utf-8").decode(bytes);
  }

  function field(item, kind) {
    return document.getElementById(kind + "-" + item.dataset.item);
  }

  function decision(item) {
    var checked = item.querySelector("input[type=radio]:checked");
    return checked ? checked.value : "skip";
  }

  // The resolution box shows only where a sign-off would validate the item.
  function sync(item) {
    var box = item.querySelector(".resolution");
    if (box) {
      box.hidden = decision(item) !== "sign-off";
    }
  }

  // Why the item's decision cannot be saved yet, or "".
  function missing(item) {
    var chosen = decision(item);
    if (chosen === "disagree" && !field(item, "comment").value.trim()) {
      return "A disagreement needs a comment saying what is wrong.";
    }
    var resolution = field(item, "resolution");
    if (chosen === "sign-off" && item.dataset.disputed === "true" && !resolution.value.trim()) {
      return "A disagreement is recorded: a sign-off to validated says how it was resolved.";
    }
    return "";
  }

  function check(item) {
    var problem = item.querySelector(".problem");
    var why = missing(item);
    problem.textContent = why;
    problem.hidden = !why;
    return !why;
  }

  function entry(item) {
    var chosen = decision(item);
    var resolution = field(item, "resolution");
    return {
      item: item.dataset.item,
      seen_status: item.dataset.seen,
      decision: chosen,
      comment: field(item, "comment").value,
      resolution: resolution && chosen === "sign-off" ? resolution.value : ""
    };
  }

  function download(text, name) {
    var url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
  }

  function save() {
    var bad = items.filter(function (item) { return !check(item); });
    if (bad.length) {
      saved.textContent = "Not saved: " + bad.length + " item(s) need a comment or a " +
        "resolution (marked above).";
      bad[0].querySelector(".problem").scrollIntoView({ block: "center" });
      return;
    }
    var decisions = items.map(entry);
    var review = {
      schema_version: 1,
      kind: "probepress-review",
      bank: decode(form.dataset.bank),
      bank_version: form.dataset.bankVersion,
      batch: form.dataset.batch,
      decisions: decisions
    };
    download(JSON.stringify(review, null, 2) + "\n", form.dataset.file);
    var count = function (what) {
      return decisions.filter(function (d) { return d.decision === what; }).length;
    };
    saved.textContent = "Saved " + form.dataset.file + ": " + count("sign-off") + " signed off, " +
      count("disagree") + " disagreed, " + count("skip") + " skipped. Send the file to the " +
      "bank's maintainer.";
  }

  items.forEach(function (item) {
    item.addEventListener("change", function () { sync(item); });
    sync(item);
  });
  button.addEventListener("click", save);
}());
