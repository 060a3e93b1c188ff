import PizZip from 'pizzip';
import { readStylesPart } from './styles-part';

describe('readStylesPart', () => {
  it('is absent from a package without styles.xml', () => {
    expect(readStylesPart(new PizZip())).toBeUndefined();
  });
});
