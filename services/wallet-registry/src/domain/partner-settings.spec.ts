// Proves the administrators' domain is stored in one canonical form and that
// anything but a plain ASCII domain is refused.
import { AppError } from '@platform/errors';
import { parsePartnerSettings } from './partner-settings';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

describe('parsePartnerSettings', () => {
  it('lower-cases and trims the domain', () => {
    expect(parsePartnerSettings({ partnerId, adminDomain: ' Example.COM ' }).adminDomain).toBe('example.com');
  });

  it.each([
    'example',
    'example.com.',
    '.example.com',
    'exa mple.com',
    'éxample.com',
    'example..com',
    '-example.com',
    '',
  ])('refuses %p', (adminDomain) => {
    expect(() => parsePartnerSettings({ partnerId, adminDomain })).toThrow(AppError);
  });

  it('names every bad field', () => {
    try {
      parsePartnerSettings({ partnerId: 'nope', adminDomain: 'nope' });
    } catch (error) {
      expect((error as AppError).partnerMessage).toBe('Validation failed on: partnerId, adminDomain');
    }
  });
});
