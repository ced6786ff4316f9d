import assert from 'node:assert/strict';
import { sniffBuffer, typeAccepted } from '@fw/files';

// The first bytes of real formats (file-type matches on these signatures).
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const PDF = Buffer.from('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n', 'latin1');

describe('sniffBuffer(bytes) and typeAccepted(accept, sniffed, name)', () => {
  it('knows a PNG and a PDF by their bytes', async () => {
    assert.deepEqual(await sniffBuffer(PNG), { type: 'image/png', ext: 'png' });
    assert.deepEqual(await sniffBuffer(PDF), { type: 'application/pdf', ext: 'pdf' });
  });

  it('an HTML page is text, whatever it is called', async () => {
    const html = Buffer.from('<!doctype html><script>alert(1)</script>');
    const sniffed = await sniffBuffer(html);
    assert.deepEqual(sniffed, { type: 'text/plain', ext: undefined });
    assert.equal(typeAccepted(['image/png', 'image/jpeg'], sniffed, 'cover.png'), false);
    assert.equal(typeAccepted(['.png'], sniffed, 'cover.png'), false);
  });

  it('binary bytes no signature knows are application/octet-stream', async () => {
    assert.deepEqual(await sniffBuffer(Buffer.from([0, 1, 2, 0xff, 0xfe, 0])), { type: 'application/octet-stream', ext: undefined });
  });

  it('matches MIME types, wildcards and extensions', async () => {
    const png = await sniffBuffer(PNG);
    assert.equal(typeAccepted([], png, 'x'), true);
    assert.equal(typeAccepted(['image/*'], png, 'x.bin'), true);
    assert.equal(typeAccepted(['image/png'], png, 'x'), true);
    assert.equal(typeAccepted(['.png'], png, 'renamed.pdf'), true);
    assert.equal(typeAccepted(['application/pdf', '.pdf'], png, 'fake.pdf'), false);
    const text = await sniffBuffer(Buffer.from('a,b\n1,2\n'));
    assert.equal(typeAccepted(['.csv'], text, 'table.CSV'), true);
    assert.equal(typeAccepted(['.csv'], text, 'table.txt'), false);
  });
});
