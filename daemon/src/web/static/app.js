// docsift web UI: progressive enhancement only. Every page works without this file.
(() => {
  // Copy buttons: <button data-copy="#id">. The Clipboard API needs a secure context (https or
  // localhost); elsewhere fall back to selecting the text so Ctrl+C works.
  for (const btn of document.querySelectorAll('[data-copy]')) {
    btn.hidden = false;
    btn.addEventListener('click', async () => {
      const target = document.querySelector(btn.getAttribute('data-copy'));
      if (!target) return;
      const text = target.textContent.trim();
      const label = btn.querySelector('[data-label]') || btn;
      const original = label.textContent;
      try {
        await navigator.clipboard.writeText(text);
        label.textContent = 'Copied';
      } catch {
        const range = document.createRange();
        range.selectNodeContents(target);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        label.textContent = 'Selected: press Ctrl+C';
      }
      const status = document.getElementById('copy-status');
      if (status) status.textContent = label.textContent;
      setTimeout(() => (label.textContent = original), 2500);
    });
  }

  // Key scope: collection grants only matter for scoped keys.
  for (const form of document.querySelectorAll('[data-scope-form]')) {
    const grants = form.querySelector('[data-scope-grants]');
    const sync = () => {
      const scoped = form.querySelector('input[name="access"][value="scoped"]');
      if (grants && scoped) grants.disabled = !scoped.checked;
    };
    form.addEventListener('change', sync);
    sync();
  }

  // Chart columns: hover or keyboard focus shows the day's figures in the readout line.
  for (const chart of document.querySelectorAll('[data-chart]')) {
    const readout = document.getElementById(chart.getAttribute('data-readout'));
    if (!readout) continue;
    const initial = readout.textContent;
    const show = (col) => (readout.textContent = col ? col.getAttribute('aria-label') : initial);
    chart.addEventListener('mouseover', (e) => show(e.target.closest('.col')));
    chart.addEventListener('mouseleave', () => show(null));
    chart.addEventListener('focusin', (e) => show(e.target.closest('.col')));
    chart.addEventListener('focusout', () => show(null));
    chart.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
      const cols = [...chart.querySelectorAll('.col')];
      const i = cols.indexOf(document.activeElement);
      const next = cols[Math.min(cols.length - 1, Math.max(0, i + (e.key === 'ArrowRight' ? 1 : -1)))];
      if (next) {
        next.focus();
        e.preventDefault();
      }
    });
  }

  // Submit buttons: no double submissions of a slow form.
  for (const form of document.querySelectorAll('form[method="post"]')) {
    form.addEventListener('submit', () => {
      for (const b of form.querySelectorAll('button[type="submit"]')) setTimeout(() => (b.disabled = true), 0);
    });
  }
})();
