// The small items of issue 20, each as a person meets it on the demo: the delete confirm's Cancel
// not covered by a tooltip, drawer titles in the singular, one date format in table, form and
// details, image previews in the form and the details, an Edit button in the details, a sign-in
// refusal that goes once the person edits, the header following an edit of one's own name, and a
// password change that returns to the page it was started from.
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { expect } from 'chai';
import { describeBrowser } from '@fw/test-utils';
import { ADMIN_PASSWORD, apiToken, openPage, openSignedIn, rowWith, shot, startDemo, submitSignIn, waitUntil, type UiDemo } from './support.js';

/** A 24×24 PNG of one colour. */
function png(rgb: [number, number, number]): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = table[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const size = 24;
  const stride = 1 + size * 3;
  const raw = Buffer.alloc(size * stride);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) raw.set(rgb, y * stride + 1 + x * 3);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

describeBrowser('admin UI: the small items of issue 20', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${ui.url}/fw-api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', token }, body: JSON.stringify(body) });
    expect(res.status, path).to.equal(200);
    return (await res.json()) as Record<string, unknown>;
  };

  it('keeps the delete tooltip off while the confirm is open, so Cancel can be clicked', async () => {
    await api('/data/modify/Book', { title: 'To keep', isbn: '9780441172719' });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      const del = rowWith(page, 'To keep').locator('.fw-row-delete');
      await del.hover();
      await page.locator('.ant-tooltip', { hasText: 'Delete' }).waitFor();
      await del.click();
      const cancel = page.locator('.ant-popconfirm').getByRole('button', { name: 'Cancel' });
      await cancel.waitFor();
      await waitUntil(page, `![...document.querySelectorAll('.ant-tooltip:not(.ant-tooltip-hidden)')].some((t) => t.textContent === 'Delete')`);
      await shot(page, join(ui.shots, 'small-delete-confirm.png'));
      // The point at Cancel's centre is Cancel, not a tooltip above it.
      const box = (await cancel.boundingBox())!;
      const hit = await page.evaluate(`document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2})?.closest('button')?.textContent`);
      expect(hit).to.equal('Cancel');
      await cancel.click();
      await page.locator('.ant-popconfirm').waitFor({ state: 'hidden' });
      await rowWith(page, 'To keep').waitFor();
    } finally {
      await context.close();
    }
  });

  it('titles drawers in the singular, shows one date format in table, form and details, and offers Edit in the details', async () => {
    const dune = await api('/data/modify/Book', { title: 'Dune', isbn: '9780441172696', published: '1965-08-01', price: 9.5 });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      expect(await rowWith(page, 'Dune').locator('td.fw-col-published').innerText()).to.equal('1965-08-01');
      await page.locator('.fw-add').click();
      await page.locator('.ant-drawer-title', { hasText: 'Add Book' }).waitFor();
      expect(await page.locator('.ant-drawer-title').innerText()).to.equal('Add Book');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });

      await rowWith(page, 'Dune').locator('.fw-row-details').click();
      await page.locator('.ant-drawer-title', { hasText: `Book #${String(dune.id)}` }).waitFor();
      await page.locator('.fw-details').getByText('1965-08-01').waitFor();
      await shot(page, join(ui.shots, 'small-details-edit.png'));
      await page.locator('.fw-details-edit').click();
      await page.locator('.ant-drawer-title', { hasText: `Edit Book #${String(dune.id)}` }).waitFor();
      await waitUntil(page, `document.querySelector('#row-edit_published')?.value === '1965-08-01'`);
      await page.locator('#row-edit_price').fill('11');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      const stored = await ui.demo.store.knex('demo_book').where({ id: dune.id }).first();
      expect(Number(stored.price)).to.equal(11);
      expect(stored.published).to.equal('1965-08-01');
    } finally {
      await context.close();
    }
  });

  it('previews an image field in the form (new and stored files) and in the details', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Author', token);
      await page.locator('.fw-add').click();
      await page.locator('#row-add_name').fill('Octavia E. Butler');
      await page.locator('.ant-drawer .fw-field-photo input[type=file]').setInputFiles({ name: 'butler.png', mimeType: 'image/png', buffer: png([0x2a, 0x9d, 0x8f]) });
      const preview = page.locator('.ant-drawer .fw-field-photo .ant-upload-list-item-thumbnail img');
      await preview.waitFor();
      expect(await preview.getAttribute('src')).to.match(/^blob:/);
      await waitUntil(page, `document.querySelector('.fw-field-photo .ant-upload-list-item-thumbnail img')?.naturalWidth === 24`);
      await page.locator('.ant-drawer .fw-field-photo').scrollIntoViewIfNeeded();
      await shot(page, join(ui.shots, 'small-image-form.png'));
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });

      await rowWith(page, 'Octavia E. Butler').locator('.fw-row-details').click();
      const detail = page.locator('.fw-details .fw-attachment-preview img.fw-thumbnail');
      await detail.waitFor();
      await waitUntil(page, `document.querySelector('.fw-details .fw-attachment-preview img.fw-thumbnail')?.naturalWidth === 24`);
      expect(await page.locator('.fw-details .fw-attachment-preview .fw-attachment-link').innerText()).to.equal('butler.png');
      await shot(page, join(ui.shots, 'small-image-details.png'));
      // The stored file in the edit form: fetched with the token, shown from a blob.
      await page.locator('.fw-details-edit').click();
      await waitUntil(page, `document.querySelector('.fw-field-photo .ant-upload-list-item-thumbnail img')?.naturalWidth === 24`);
      expect(await page.locator('.ant-drawer .fw-field-photo .ant-upload-list-item-thumbnail img').getAttribute('src')).to.match(/^blob:/);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('clears a refused sign-in once the person edits a field', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.goto(`${ui.url}/login`);
      await submitSignIn(page, 'admin', 'not-the-password');
      const refused = page.locator('.fw-login-error');
      await refused.waitFor();
      await page.locator('#login_password').fill('');
      await refused.waitFor({ state: 'detached' });
      // The field's own error stands alone.
      await page.locator('#login button[type=submit]').click();
      await page.locator('#login_password_help').waitFor();
      expect(await page.locator('.fw-login-error').count()).to.equal(0);
      await shot(page, join(ui.shots, 'small-sign-in-cleared.png'));
    } finally {
      await context.close();
    }
  });

  it('updates the header after editing one’s own name, and returns to the page after a password change', async () => {
    const { context, page } = await openPage(browser());
    try {
      const admin = (await ui.demo.store.users.findByAccount('admin'))!;
      await openSignedIn(page, ui.url, '/model/FwUser', token);
      await rowWith(page, 'admin').locator('.fw-row-edit').click();
      await page.locator('.ant-drawer-title', { hasText: `Edit User #${admin.id}` }).waitFor();
      await page.locator('#row-edit_name').fill('Ada Admin');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      await waitUntil(page, `document.querySelector('.fw-user-menu .fw-user-name')?.textContent === 'Ada Admin (admin)'`);

      await page.goto(`${ui.url}/model/Book?page=1`);
      await page.locator('.fw-header').waitFor();
      await page.locator('.fw-user-menu').click();
      await page.getByRole('menuitem', { name: 'Change password' }).click();
      await page.locator('#change-password_pwd').fill(ADMIN_PASSWORD);
      await page.locator('#change-password_newPwd').fill('lantern-orchard-77');
      await page.locator('#change-password_newPwd2').fill('lantern-orchard-77');
      await page.getByRole('button', { name: 'Change password' }).click();
      await waitUntil(page, `location.pathname === '/model/Book'`);
      await page.locator('.fw-model[data-model="Book"]').waitFor();
    } finally {
      await context.close();
    }
  });
});
