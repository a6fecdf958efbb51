// Review page: "All shown" ticks or unticks every held commission's box (a static file: the
// Content-Security-Policy allows no inline script). Without JavaScript the boxes are ticked one by one.
document.addEventListener("DOMContentLoaded", function () {
  var all = document.getElementById("select-all");
  if (!all) { return; }
  var boxes = document.querySelectorAll('input[type="checkbox"][name="commission"][form="bulk"]');
  all.closest("label").hidden = false;
  all.addEventListener("change", function () {
    boxes.forEach(function (box) { box.checked = all.checked; });
  });
});
