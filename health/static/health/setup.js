// Setup page: a "Copy" button under each snippet (a static file: the Content-Security-Policy allows no inline script).
document.querySelectorAll("pre[data-copy]").forEach(function (pre) {
  if (!navigator.clipboard) { return; }
  var button = document.createElement("button");
  button.type = "button";
  button.className = "button secondary";
  button.textContent = "Copy";
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(pre.textContent).then(function () { button.textContent = "Copied"; });
  });
  pre.insertAdjacentElement("afterend", button);
});
