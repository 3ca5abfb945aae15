// Red poppies: three loose scarlet blooms with dark centres on thin stems, one bud.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function petal(x, y, ang, len, wide) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.55 * cos(ang - wide), y + len * 0.55 * sin(ang - wide));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.55 * cos(ang + wide), y + len * 0.55 * sin(ang + wide));
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  const blooms = [[220, 230, 80], [390, 300, 65], [280, 420, 50]];
  for (const [x, y, r] of blooms) {
    wash("#6f8f52", 190, 0.1, 0.3, 0.4);
    petal(x, y + r * 0.4, HALF_PI + 0.1, 600 - y, 0.02);
  }
  for (const [x, y, r] of blooms) {
    for (let k = 0; k < 5; k++) {
      wash(k % 2 ? "#e0412f" : "#d2322a", 190, 0.4, 0.5, 0.6);
      petal(x, y, k * TWO_PI / 5 + r, r, 0.6);
    }
    wash("#a8201e", 160, 0.3, 0.5, 0.6);
    brush.circle(x, y, r * 0.35);
    wash("#231a1c", 220, 0.1, 0.4, 0.5);
    brush.circle(x, y, r * 0.14);
  }
  wash("#c7392d", 200, 0.2, 0.4, 0.5);
  petal(470, 180, -HALF_PI, 40, 0.4);
  wash("#6f8f52", 190, 0.1, 0.3, 0.4);
  petal(470, 182, HALF_PI, 418, 0.02);
}
