// perimeter console: progressive enhancement only; every page works without this script.

// "Select all" checkboxes: <input type="checkbox" data-select-all="NAME"> toggles every checkbox named NAME.
for (const all of document.querySelectorAll('input[data-select-all]')) {
  const boxes = () => document.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`);
  const sync = () => {
    const list = [...boxes()];
    all.checked = list.length > 0 && list.every((b) => b.checked);
    all.indeterminate = !all.checked && list.some((b) => b.checked);
    for (const counter of document.querySelectorAll(`[data-selected-count="${all.dataset.selectAll}"]`))
      counter.textContent = String(list.filter((b) => b.checked).length);
  };
  all.addEventListener('change', () => {
    for (const box of boxes()) box.checked = all.checked;
    sync();
  });
  for (const box of boxes()) box.addEventListener('change', sync);
  sync();
}

// Buttons that act on a selection stay disabled until something is selected.
for (const button of document.querySelectorAll('button[data-needs-selection]')) {
  const name = button.dataset.needsSelection;
  const update = () => {
    button.disabled = !document.querySelector(`input[type=checkbox][name="${name}"]:checked`);
  };
  document.addEventListener('change', update);
  update();
}

// Forms that ask before they act: <form data-confirm="Delete this asset?">.
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
