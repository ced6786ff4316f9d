import { expect } from 'chai';
import { FW_ERROR_CODES, FwError, isFwError } from '@fw/core';

describe('FwError', () => {
  it('carries the status and default message of its code', () => {
    const error = new FwError('ROW_NOT_FOUND');
    expect(error.status).to.equal(404);
    expect(error.message).to.equal(FW_ERROR_CODES.ROW_NOT_FOUND.message);
    expect(error.toBody()).to.deep.equal({ error: { code: 'ROW_NOT_FOUND', message: FW_ERROR_CODES.ROW_NOT_FOUND.message } });
    expect(isFwError(error)).to.equal(true);
    expect(isFwError(new Error('x'))).to.equal(false);
  });

  it('passes validation details through to the body', () => {
    const details = [{ path: 'title', type: 'required', message: 'title is required' }];
    expect(new FwError('VALIDATION_FAILED', 'Invalid row', { details }).toBody()).to.deep.equal({
      error: { code: 'VALIDATION_FAILED', message: 'Invalid row', details },
    });
  });

  it('uses upper-snake codes with client statuses, 500 for a bug and 503 for an outage or overload only', () => {
    for (const [code, { status }] of Object.entries(FW_ERROR_CODES)) {
      expect(code).to.match(/^[A-Z][A-Z0-9_]*$/);
      if (status >= 500) expect(`${code} ${status}`).to.be.oneOf(['INTERNAL 500', 'UNAVAILABLE 503', 'OVERLOADED 503']);
      else expect(status).to.be.within(400, 499);
    }
  });
});
