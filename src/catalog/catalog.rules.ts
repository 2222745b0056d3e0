export { containsPattern } from '../common/pagination/search.js';
