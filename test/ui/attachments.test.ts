// ATTACHMENT fields as a person uses them, on the demo's Author (a photo, and up to five papers):
// the form's upload widget with its limits, a thumbnail in the table, file links in the details
// that download the file; a file of the wrong type refused with the server's message.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { expect } from 'chai';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, waitUntil, type UiDemo } from './support.js';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A 32×32 PNG, left half blue, right half orange: big enough to see in a screenshot. */
function twoColourPng(): Buffer {
  const size = 32;
  const stride = 1 + size * 3;
  const raw = Buffer.alloc(size * stride);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) raw.set(x < size / 2 ? [0x1f, 0x77, 0xb4] : [0xff, 0x7f, 0x0e], y * stride + 1 + x * 3);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const PNG = twoColourPng();
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');

describeBrowser('admin UI: attachments', (browser) => {
  let ui: UiDemo;
  let token: string;
  const authors = () => ui.demo.store.knex(ui.demo.registry.get('Author')!.table);
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  it('uploads a photo and papers in the form (limits shown), shows a thumbnail in the table and file links that download in the details; removing a file in the edit form deletes it', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Author', token);
      await page.locator('.fw-add').click();
      await page.locator('.ant-drawer-title', { hasText: 'Add Author' }).waitFor();
      await page.locator('#row-add_name').fill('Ursula K. Le Guin');
      // The limits the server applies, said beside the widget.
      const photoHint = await page.locator('.ant-drawer .fw-field-photo .fw-upload-limits').innerText();
      expect(photoHint).to.contain('Up to 1 file(s) of at most 2 MB').and.contain('PNG, JPEG, GIF, WEBP');
      expect(await page.locator('.ant-drawer .fw-field-papers .fw-upload-limits').innerText()).to.contain('Up to 5 file(s) of at most 10 MB; application/pdf, .txt, .md');
      expect(await page.locator('.ant-drawer .fw-field-photo input[type=file]').getAttribute('accept')).to.equal('image/png,image/jpeg,image/gif,image/webp');

      await page.locator('.ant-drawer .fw-field-photo input[type=file]').setInputFiles({ name: 'le-guin.png', mimeType: 'image/png', buffer: PNG });
      await page.locator('.ant-drawer .fw-field-photo .ant-upload-list-item-done', { hasText: 'le-guin.png' }).waitFor();
      await page.locator('.ant-drawer .fw-field-papers input[type=file]').setInputFiles([
        { name: 'earthsea.pdf', mimeType: 'application/pdf', buffer: PDF },
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('The Language of the Night') },
      ]);
      await page.locator('.ant-drawer .fw-field-papers .ant-upload-list-item-done', { hasText: 'notes.txt' }).waitFor();
      await page.locator('.ant-drawer .fw-field-papers .ant-upload-list-item-done', { hasText: 'earthsea.pdf' }).waitFor();
      await page.locator('.ant-drawer .fw-field-papers').scrollIntoViewIfNeeded();
      await shot(page, join(ui.shots, 'attachments-form.png'));
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });

      const row = await authors().where({ name: 'Ursula K. Le Guin' }).first();
      const photo = JSON.parse(row.photo as string) as Array<{ id: string; name: string; type: string }>;
      const papers = JSON.parse(row.papers as string) as Array<{ id: string; name: string }>;
      expect(photo.map((f) => [f.name, f.type])).to.deep.equal([['le-guin.png', 'image/png']]);
      expect(papers.map((f) => f.name).sort()).to.deep.equal(['earthsea.pdf', 'notes.txt']);
      expect(readFileSync(join(ui.dir, 'files', photo[0]!.id)).equals(PNG)).to.equal(true);

      // The table shows the photo as a thumbnail, fetched with the token header (never in the URL).
      const thumb = rowWith(page, 'Ursula K. Le Guin').locator('td.fw-col-photo img.fw-thumbnail');
      await thumb.waitFor();
      await waitUntil(page, `document.querySelector('td.fw-col-photo img.fw-thumbnail')?.naturalWidth === 32`);
      expect(await thumb.getAttribute('src')).to.match(/^blob:/);
      // Scrolled to the photo column (the actions column stays fixed on the right).
      await page.locator('.ant-table-content').evaluate((el) => (el.scrollLeft = el.scrollWidth));
      await shot(page, join(ui.shots, 'attachments-table.png'));

      // The details list the papers as links that download the file.
      await rowWith(page, 'Ursula K. Le Guin').locator('.fw-row-details').click();
      const link = page.locator('.fw-details .fw-attachment-link', { hasText: 'earthsea.pdf' });
      await link.waitFor();
      await shot(page, join(ui.shots, 'attachments-details.png'));
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).to.equal('earthsea.pdf');
      expect(readFileSync((await download.path())!).equals(PDF)).to.equal(true);
      await page.locator('.ant-drawer-close').click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });

      // The edit form lists the stored files; removing one and saving deletes it from the storage.
      await rowWith(page, 'Ursula K. Le Guin').locator('.fw-row-edit').click();
      await page.locator('.ant-drawer-title', { hasText: `Edit Author #${row.id}` }).waitFor();
      const notes = page.locator('.ant-drawer .fw-field-papers .ant-upload-list-item', { hasText: 'notes.txt' });
      await notes.waitFor();
      await notes.hover();
      await notes.locator('.ant-upload-list-item-actions button, .anticon-delete').first().click();
      await notes.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      const after = JSON.parse((await authors().where({ id: row.id }).first()).papers as string) as Array<{ id: string; name: string }>;
      expect(after.map((f) => f.name)).to.deep.equal(['earthsea.pdf']);
      const removed = papers.find((f) => f.name === 'notes.txt')!;
      expect(existsSync(join(ui.dir, 'files', removed.id)), 'the removed file is deleted after the save').to.equal(false);
      expect(existsSync(join(ui.dir, 'files', after[0]!.id))).to.equal(true);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('a file the field does not accept is refused with the server’s message, and the form keeps no file', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Author', token);
      await page.locator('.fw-add').click();
      await page.locator('.ant-drawer-title', { hasText: 'Add Author' }).waitFor();
      await page.locator('#row-add_name').fill('Not a photo');
      // An HTML page named .png: the server sniffs the bytes and refuses it (415).
      await page
        .locator('.ant-drawer .fw-field-photo input[type=file]')
        .setInputFiles({ name: 'evil.png', mimeType: 'image/png', buffer: Buffer.from('<!doctype html><script>alert(1)</script>') });
      await page.locator('.ant-message', { hasText: 'evil.png is text/plain; photo accepts image/png, image/jpeg, image/gif, image/webp' }).waitFor();
      await page.locator('.ant-drawer .fw-field-photo .ant-upload-list-item-error', { hasText: 'evil.png' }).waitFor();
      // A failed upload takes no place: another file can still be chosen.
      expect(await page.locator('.ant-drawer .fw-field-photo .fw-upload-button').isEnabled()).to.equal(true);
      await page.locator('.ant-drawer .fw-field-photo').scrollIntoViewIfNeeded();
      await shot(page, join(ui.shots, 'attachments-refused.png'));
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      const row = await authors().where({ name: 'Not a photo' }).first();
      expect(row.photo ?? null).to.equal(null);
    } finally {
      await context.close();
    }
  });
});
