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

  // Validation errors: the summary at the top takes focus, so it is read out and seen first.
  const summary = document.querySelector('[data-error-summary]');
  if (summary) summary.focus();

  // Live status: elements with data-live and data-doc-id are pending documents. Their status is
  // polled (backing off while nothing changes) and the badge, chunk count and error updated; a
  // document page (data-live-reload) reloads once processing is over, to show the chunks.
  const TONES = { indexed: 'ok', pending: 'warn', failed: 'danger' };
  let polling = false;
  let delay = 1000;
  const liveElements = () => [...document.querySelectorAll('[data-live][data-doc-id]')];
  const applyStatus = (el, d) => {
    const badge = el.querySelector('[data-live-status] .badge');
    if (badge && badge.textContent !== d.status) {
      badge.textContent = d.status;
      badge.className = `badge ${TONES[d.status] || 'neutral'}`;
    }
    const chunks = el.querySelector('[data-live-chunks]');
    if (chunks) chunks.textContent = d.chunks_count.toLocaleString('en-US');
    const err = el.querySelector('[data-live-error]');
    if (err && d.status === 'failed' && d.error_message) {
      err.hidden = false;
      const text = err.querySelector('[data-live-error-text]');
      if (text) text.textContent = d.error_message;
    }
    if (d.status === 'pending') return false;
    el.removeAttribute('data-live');
    if (el.hasAttribute('data-live-reload')) window.location.reload();
    return true;
  };
  const poll = async () => {
    const els = liveElements();
    if (!els.length) {
      polling = false;
      return;
    }
    const ids = [...new Set(els.map((e) => e.getAttribute('data-doc-id')))].slice(0, 100);
    let changed = false;
    try {
      const r = await fetch(`/app/documents/status?ids=${encodeURIComponent(ids.join(','))}`, { headers: { Accept: 'application/json' } });
      if (r.ok) {
        const { documents } = await r.json();
        for (const d of documents)
          for (const el of els) if (el.getAttribute('data-doc-id') === d.uuid && applyStatus(el, d)) changed = true;
      }
    } catch {
      // Offline for a moment: try again later.
    }
    delay = changed ? 1000 : Math.min(delay * 1.5, 10000);
    setTimeout(poll, delay);
  };
  const watch = () => {
    if (polling || !liveElements().length) return;
    polling = true;
    delay = 1000;
    setTimeout(poll, delay);
  };
  watch();

  // After an upload, the page's document list (#documents) is fetched again and swapped in, so the
  // new documents show (and their status is followed) without a reload.
  const refreshDocuments = async () => {
    const current = document.getElementById('documents');
    if (!current) return;
    try {
      const r = await fetch(window.location.href, { headers: { Accept: 'text/html' } });
      if (!r.ok) return;
      const fresh = new DOMParser().parseFromString(await r.text(), 'text/html').getElementById('documents');
      if (fresh) current.replaceWith(document.adoptNode(fresh));
      watch();
    } catch {
      // Offline for a moment: the "Refresh the list" link still works.
    }
  };

  // Uploads: files from the picker or dropped on the zone go in one request to the form's upload
  // endpoint (the API's use case behind it), with a progress bar per file worked out from the
  // bytes sent. Results and refusals are the API's own: uploaded, skipped with a reason, or an error.
  const sizeText = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);
  for (const form of document.querySelectorAll('form[data-upload]')) {
    const input = form.querySelector('input[type="file"]');
    const zone = form.querySelector('[data-dropzone]');
    const list = form.querySelector('[data-upload-list]');
    const status = form.querySelector('[data-upload-summary]');
    const button = form.querySelector('button[type="submit"]');
    const multiple = form.getAttribute('data-multiple') === 'true';
    let busy = false;

    const makeRow = (file) => {
      const li = document.createElement('li');
      li.className = 'upload-item';
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = file.name;
      const size = document.createElement('span');
      size.className = 'size';
      size.textContent = sizeText(file.size);
      const progress = document.createElement('progress');
      progress.max = 1;
      progress.value = 0;
      progress.setAttribute('aria-label', `Upload progress of ${file.name}`);
      const state = document.createElement('span');
      state.className = 'state';
      state.textContent = 'waiting';
      li.append(name, size, progress, state);
      list.append(li);
      return { file, li, progress, state, done: false };
    };
    const settle = (row, cls, text, doc) => {
      row.done = true;
      row.li.classList.add(cls);
      row.progress.value = 1;
      row.state.textContent = text;
      if (!doc) return;
      const link = document.createElement('a');
      link.href = `/app/documents/${doc.uuid}`;
      link.textContent = 'open';
      const badgeWrap = document.createElement('span');
      badgeWrap.setAttribute('data-live-status', '');
      const badge = document.createElement('span');
      badge.className = `badge ${TONES[doc.status] || 'neutral'}`;
      badge.textContent = doc.status;
      badgeWrap.append(badge);
      row.state.append(' ', badgeWrap, ' · ', link);
      row.li.setAttribute('data-doc-id', doc.uuid);
      if (doc.status === 'pending') row.li.setAttribute('data-live', '');
    };
    const rowFor = (rows, filename) => rows.find((r) => !r.done && r.file.name === filename) || rows.find((r) => !r.done);

    const finish = (rows, httpStatus, body) => {
      busy = false;
      button.disabled = false;
      if (httpStatus >= 200 && httpStatus < 300 && body) {
        if (Array.isArray(body.uploaded)) {
          for (const d of body.uploaded) {
            const row = rowFor(rows, d.original_filename);
            if (row) settle(row, 'ok', 'uploaded', d);
          }
          for (const s of body.skipped) {
            const row = rowFor(rows, s.filename);
            if (row) settle(row, 'skipped', `skipped: ${s.reason}`);
          }
          status.textContent = `${body.total_uploaded} uploaded, ${body.total_skipped} skipped.`;
        } else {
          settle(rows[0], 'ok', multiple ? 'uploaded' : 'replaced', body);
          status.textContent = multiple ? '1 uploaded.' : 'Replaced. Processing the new file…';
          if (multiple) refreshDocuments();
          if (!multiple) window.location.assign(`/app/documents/${body.uuid}?done=replaced`);
        }
        if (multiple && body.total_uploaded !== 0) {
          refreshDocuments();
          const refresh = document.createElement('a');
          refresh.href = `${window.location.pathname}#documents`;
          refresh.textContent = ' Refresh the list';
          refresh.addEventListener('click', () => window.setTimeout(() => window.location.reload(), 0));
          status.append(refresh);
        }
        input.value = '';
        watch();
        return;
      }
      const message = body?.error || 'The upload did not reach the server (connection closed). Check the file sizes and try again.';
      const code = body?.code || 'UPLOAD_FAILED';
      for (const row of rows) if (!row.done) settle(row, 'failed', `${code}: ${message}`);
      status.textContent = `Upload refused: ${message}`;
    };

    const start = (files) => {
      if (busy || !files.length) return;
      busy = true;
      button.disabled = true;
      list.textContent = '';
      status.textContent = `Uploading ${files.length} ${files.length === 1 ? 'file' : 'files'}…`;
      const rows = files.map(makeRow);
      const data = new FormData();
      const tags = form.querySelector('input[name="tags"]');
      if (tags?.value.trim()) data.append('tags', tags.value);
      const metadata = form.querySelector('textarea[name="metadata"]');
      if (metadata?.value.trim()) data.append('metadata', metadata.value);
      // One file is a single upload (its refusal is the request's error); several are a batch,
      // where the API skips what it cannot take and says why.
      const field = multiple && files.length > 1 ? 'files' : 'file';
      for (const f of files) data.append(field, f, f.name);
      const xhr = new XMLHttpRequest();
      xhr.open('POST', form.getAttribute('data-upload'));
      xhr.setRequestHeader('Accept', 'application/json');
      xhr.setRequestHeader('X-CSRF-Token', form.getAttribute('data-csrf'));
      const total = files.reduce((s, f) => s + f.size, 0);
      xhr.upload.addEventListener('progress', (e) => {
        if (!e.lengthComputable || !e.total) return;
        const sent = (e.loaded / e.total) * total;
        let offset = 0;
        for (const row of rows) {
          const part = row.file.size ? Math.min(1, Math.max(0, (sent - offset) / row.file.size)) : sent >= offset ? 1 : 0;
          row.progress.value = part;
          row.state.textContent = part >= 1 ? 'sent' : part > 0 ? `uploading ${Math.round(part * 100)}%` : 'waiting';
          offset += row.file.size;
        }
      });
      xhr.addEventListener('load', () => {
        let body = null;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          body = null;
        }
        finish(rows, xhr.status, body);
      });
      xhr.addEventListener('error', () => finish(rows, 0, null));
      xhr.send(data);
    };

    form.addEventListener('submit', (e) => {
      e.preventDefault();
      start([...input.files]);
    });
    zone.addEventListener('dragover', (e) => {
      e.preventDefault();
      zone.classList.add('over');
    });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      zone.classList.remove('over');
      const files = [...e.dataTransfer.files];
      start(multiple ? files : files.slice(0, 1));
    });
  }

  // Collection picker: the summary names what is ticked; a click elsewhere or Escape closes it.
  for (const picker of document.querySelectorAll('[data-picker]')) {
    const summary = picker.querySelector('[data-picker-summary]');
    const boxes = [...picker.querySelectorAll('input[type="checkbox"]')];
    picker.addEventListener('change', () => {
      const on = boxes.filter((b) => b.checked);
      summary.textContent = !on.length
        ? summary.getAttribute('data-all')
        : on.length === 1
          ? on[0].getAttribute('data-name')
          : `${on.length} collections`;
    });
    document.addEventListener('click', (e) => {
      if (picker.open && !picker.contains(e.target)) picker.open = false;
    });
    picker.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !picker.open) return;
      picker.open = false;
      picker.querySelector('summary').focus();
    });
  }

  // Metadata conditions: a value field suggests the values seen for the key typed beside it.
  const valueLists = new Map([...document.querySelectorAll('datalist[data-meta-key]')].map((d) => [d.getAttribute('data-meta-key'), d.id]));
  for (const row of document.querySelectorAll('[data-meta-row]')) {
    const key = row.querySelector('input[name="mk"]');
    const value = row.querySelector('input[name="mv"]');
    key.addEventListener('input', () => {
      const list = valueLists.get(key.value.trim());
      if (list) value.setAttribute('list', list);
      else value.removeAttribute('list');
    });
  }

  // Submit buttons: no double submissions of a slow form (uploads handle their own button).
  for (const form of document.querySelectorAll('form[method="post"]')) {
    form.addEventListener('submit', (e) => {
      if (e.defaultPrevented) return;
      for (const b of form.querySelectorAll('button[type="submit"]')) setTimeout(() => (b.disabled = true), 0);
    });
  }
})();
