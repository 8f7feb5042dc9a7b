import { toggle } from './enable.js';

export default toggle(false);
